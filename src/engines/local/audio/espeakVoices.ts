/**
 * Voices of the eSpeak NG WASM build in the `espeak-ng` npm package (listed with `--voices`), and the
 * voice variants usable with it. Klatt variants are left out: that build has no Klatt synthesizer.
 */
export const ESPEAK_VOICES = [
  'en-us', 'en-gb', 'en-gb-scotland', 'en-gb-x-rp', 'en-gb-x-gbclan', 'en-gb-x-gbcwmd', 'en-029', 'en-us-nyc',
  'af', 'am', 'an', 'ar', 'as', 'az', 'ba', 'be', 'bg', 'bn', 'bpy', 'bs', 'ca', 'cmn', 'cmn-latn-pinyin', 'cs', 'cv',
  'cy', 'da', 'de', 'el', 'eo', 'es', 'es-419', 'et', 'eu', 'fa', 'fa-latn', 'fi', 'fr-fr', 'fr-be', 'fr-ch', 'ga', 'gd',
  'gn', 'grc', 'gu', 'hak', 'haw', 'he', 'hi', 'hr', 'ht', 'hu', 'hy', 'hyw', 'ia', 'id', 'io', 'is', 'it', 'ja', 'jbo',
  'ka', 'kk', 'kl', 'kn', 'ko', 'kok', 'ku', 'ky', 'la', 'lb', 'lfn', 'lt', 'ltg', 'lv', 'mi', 'mk', 'ml', 'mr', 'ms',
  'mt', 'mto', 'my', 'nb', 'nci', 'ne', 'nl', 'nog', 'om', 'or', 'pa', 'pap', 'piqd', 'pl', 'pt', 'pt-br', 'py', 'qdb',
  'qu', 'quc', 'qya', 'ro', 'ru', 'ru-cl', 'ru-lv', 'sd', 'shn', 'si', 'sjn', 'sk', 'sl', 'smj', 'sq', 'sr', 'sv', 'sw',
  'ta', 'te', 'th', 'tk', 'tn', 'tr', 'tt', 'ug', 'uk', 'ur', 'uz', 'vi', 'vi-vn-x-central', 'vi-vn-x-south', 'yue',
] as const;

/** `default` keeps the language's own voice; the others are eSpeak's `+variant` files. */
export const ESPEAK_VARIANTS = [
  'default', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'f1', 'f2', 'f3', 'f4', 'f5',
  'croak', 'whisper', 'whisperf', 'grandma', 'grandpa', 'robert', 'steph', 'linda', 'max', 'paul',
] as const;
