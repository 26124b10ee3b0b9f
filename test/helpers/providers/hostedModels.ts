import { f } from '../../../src/catalog/fields.js';
import { hostedBindings as bindings } from '../../../src/catalog/hosted/bindings/index.js';
import type { FieldSpec, ModelDef } from '../../../src/catalog/types.js';
import type { Engine } from '../../../src/engines/types.js';

/**
 * A few hosted sub-models, under their hosted ids and input names and bound through
 * src/catalog/hosted/bindings, for end-to-end tests of the provider adapters through a whole Atelier
 * (ATELIER_TEST_ENGINES_MODULE): the real run service, engine children, ledger and file store, with the
 * provider replaced by its fake. The adapters themselves come from the environment, as in production.
 * The catalog proper gets these models from the hosted catalog's data; these stand-ins carry only the
 * fields the tests send.
 */
export const engines: Engine[] = [];

const named = (spec: FieldSpec, name: string): FieldSpec => ({ ...spec, name });
const model = (subModelId: string, category: ModelDef['modes'][number]['category'], fields: FieldSpec[], microcredits: number, output: 'result' | string = 'result', outputType: 'audio' | 'text' | 'image' | 'video' = 'audio'): ModelDef => ({
  nodeType: subModelId.replace(/-/g, '_').replace(/\./g, '_'), name: subModelId, description: 'Hosted model stand-in (test only)', category: outputType === 'text' ? 'utility' : outputType,
  icon: 'hash', accent: '#334455', provider: bindings[subModelId]!.engine,
  modes: [{ subModelId, label: subModelId, category, fields, outputs: [{ name: output, dataType: outputType }], pricing: { kind: 'flat', microcredits }, engine: bindings[subModelId]!, timeoutSeconds: 60 }],
});

export const models: ModelDef[] = [
  model('elevenlabs-sfx', 'sound-effects', [
    f.text('text', 'What the sound is', { required: true, maxLength: 450 }),
    f.number('duration', 'Seconds', { min: 0.5, max: 30 }),
    f.number('promptInfluence', 'How closely to follow the text', { min: 0, max: 1, default: 0.3 }),
    f.boolean('loop', 'Loopable', { default: false }),
  ], 60_000),
  model('elevenlabs-dubbing', 'audio-translation', [
    named(f.audio(), 'audioUrl'),
    f.select('targetLanguage', 'Into', ['English', 'Spanish', 'French'], { default: 'English', required: true }),
  ], 2_200_000),
  model('ai-transcription', 'transcription', [
    f.select('inputMode', 'Where the media comes from', ['upload', 'youtube', 'tiktok', 'instagram'], { default: 'upload', required: true }),
    named(f.audio(), 'audioUrl'),
    f.select('output_format', 'Transcript form', ['text', 'timestamped', 'json'], { default: 'text' }),
    f.boolean('diarize', 'Name the speakers', { default: true }),
    f.boolean('paragraphs', 'Split into paragraphs', { default: true }),
  ], 6_760, 'result', 'text'),
  model('gemini-pro-tts', 'text-to-speech', [f.text('text', 'What to say', { required: true, maxLength: 10000 }), f.select('voice', 'Voice', ['Kore', 'Puck'], { default: 'Kore' })], 5_200),
  model('video-upscaler', 'video-to-video', [f.video(), f.select('target_resolution', 'Target size', ['720p', '1080p', '2k', '4k'], { default: '1080p' })], 1_560_000, 'result', 'video'),
  model('hedra-lipsync', 'lipsync', [f.image(), f.audio(), f.text('text_prompt', 'How the person moves', { maxLength: 2000 })], 1_638_000, 'result', 'video'),
  model('grok-imagine-image-text', 'text-to-image', [f.prompt(), f.select('output_format', 'File format', ['JPEG', 'PNG', 'WebP'], { default: 'JPEG' })], 26_000, 'result', 'image'),
];

/** Absolute path of this module, for ATELIER_TEST_ENGINES_MODULE. */
export const HOSTED_MODELS_MODULE = new URL(import.meta.url).pathname;
