import { ESPEAK_VARIANTS, ESPEAK_VOICES } from '../../engines/local/audio/espeakVoices.js';
import { FLITE_VOICES } from '../../engines/local/audio/flite.js';
import { MOOD_NAMES } from '../../engines/local/audio/music/moods.js';
import { KEYS } from '../../engines/local/audio/music/theory.js';
import { SFXR_PRESETS } from '../../engines/local/audio/sfxr.js';
import { f } from '../fields.js';
import type { FieldSpec, ModelDef, OutputSpec } from '../types.js';

/** Offline audio models: every one runs on this machine's CPU with no network. */

const audioOut: OutputSpec[] = [{ name: 'result', dataType: 'audio' }];
const speechText = () => f.text('text', 'Text to speak', { required: true, maxLength: 5000, placeholder: 'Hello! This voice runs offline.' });

/** A list of audio URLs (fields.ts has no audio-list builder yet, so this one is built here). */
function audioList(description: string, minItems: number, maxItems: number): FieldSpec {
  return {
    ...f.json('audio_urls', description, { required: true, schema: { type: 'array', items: { type: 'string', minLength: 1 }, minItems, maxItems } }),
    dataType: 'audio',
    minItems,
    maxItems,
  };
}

const TITLES: Record<string, string> = {
  'pickup-coin': 'Pickup / coin', 'laser-shoot': 'Laser / shoot', explosion: 'Explosion', 'power-up': 'Power-up',
  'hit-hurt': 'Hit / hurt', jump: 'Jump', 'blip-select': 'Blip / select', synth: 'Synth', tone: 'Tone', click: 'Click', random: 'Random',
};

export const models: ModelDef[] = [
  {
    nodeType: 'espeak_tts',
    name: 'eSpeak NG',
    description: 'Formant text-to-speech (eSpeak NG compiled to WASM) in over 100 languages and accents, with voice variants, speed and pitch. Robotic but clear, and poorly recognised by speech-to-text (see bench/results/models.md); offline, about half a second per sentence once loaded, while the first call in a process takes 4–5 s to load the WASM engine.',
    category: 'audio', icon: 'speech', accent: 'violet', provider: 'local',
    modes: [{
      subModelId: 'espeak-tts', label: 'Text to speech', category: 'text-to-speech',
      fields: [
        speechText(),
        f.select('voice', 'Language and accent', [...ESPEAK_VOICES]),
        f.select('variant', 'Voice variant: m1–m7 male, f1–f5 female, or a character voice', [...ESPEAK_VARIANTS]),
        f.integer('speed', 'Speaking rate in words per minute', { min: 80, max: 450, default: 175 }),
        f.integer('pitch', 'Base pitch, 0 (low) to 99 (high)', { min: 0, max: 99, default: 50 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'per_unit', unit: '1k_chars', microcreditsPerUnit: 2000, inputField: 'text', minimum: 200 },
      engine: { engine: 'espeak' },
      timeoutSeconds: 120,
    }],
  },
  {
    nodeType: 'flite_tts',
    name: 'Flite',
    description: 'CMU Flite text-to-speech, US English voices slt (female), awb (Scottish male), rms and kal (male). Clearer than eSpeak and very fast. Needs the Debian package flite.',
    category: 'audio', icon: 'speech', accent: 'indigo', provider: 'local',
    modes: [{
      subModelId: 'flite-tts', label: 'Text to speech', category: 'text-to-speech',
      fields: [
        speechText(),
        f.select('voice', 'Voice: slt (female), awb (Scottish male), rms (male), kal (male, 8 kHz)', [...FLITE_VOICES]),
        f.number('speed', 'Speaking rate (1 = normal, 2 = twice as fast)', { min: 0.5, max: 2, default: 1 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'per_unit', unit: '1k_chars', microcreditsPerUnit: 2000, inputField: 'text', minimum: 200 },
      engine: { engine: 'flite' },
      timeoutSeconds: 120,
    }],
  },
  {
    nodeType: 'festival_tts',
    name: 'Festival (SLT HTS voice)',
    description: 'The Festival speech synthesis system with the CMU ARCTIC "slt" US English female voice, synthesized by HTS (a hidden-Markov-model vocoder): the most natural offline voice here, though not neural. Needs the Debian packages festival and festvox-us-slt-hts.',
    category: 'audio', icon: 'speech', accent: 'purple', provider: 'local',
    modes: [{
      subModelId: 'festival-tts', label: 'Text to speech', category: 'text-to-speech',
      fields: [
        speechText(),
        f.number('speed', 'Speaking rate (1 = normal)', { min: 0.5, max: 2, default: 1 }),
        f.integer('pitch', 'Pitch shift in semitones', { min: -12, max: 12, default: 0 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'per_unit', unit: '1k_chars', microcreditsPerUnit: 3000, inputField: 'text', minimum: 300 },
      engine: { engine: 'festival' },
      timeoutSeconds: 180,
    }],
  },
  {
    nodeType: 'sfxr_sound_effects',
    name: 'sfxr sound effects',
    description: 'Procedural 8-bit game sound effects from the sfxr synthesizer (jsfxr): coins, lasers, explosions, power-ups, jumps and more. Each sub-model is a preset that draws random synth parameters; a seed makes the sound reproducible.',
    category: 'audio', icon: 'sparkles', accent: 'amber', provider: 'local',
    modes: Object.keys(SFXR_PRESETS).map((preset) => ({
      subModelId: `sfxr-${preset}`,
      label: TITLES[preset] ?? preset,
      category: 'sound-effects' as const,
      description: `sfxr "${TITLES[preset] ?? preset}" preset: procedural, not sampled.`,
      fields: [
        f.seed(),
        f.integer('n', 'How many variations (consecutive seeds)', { min: 1, max: 8, default: 1 }),
        f.number('volume', 'Peak level, 0–1', { min: 0.05, max: 1, default: 0.8 }),
      ],
      outputs: [...audioOut, { name: 'seed', dataType: 'number' }],
      pricing: { kind: 'flat', microcredits: 500 },
      engine: { engine: 'sfxr', options: { preset } },
      timeoutSeconds: 30,
    })),
  },
  {
    nodeType: 'algorithmic_music',
    name: 'Algorithmic music',
    description: 'Instrumental music composed by rules, not a neural network: seeded choices of mood-typical chord progressions, accompaniment, drum grooves and a motif-based melody, written as General MIDI and rendered with FluidSynth and a GM SoundFont. Returns the WAV and the MIDI score.',
    category: 'audio', icon: 'music', accent: 'pink', provider: 'local',
    modes: [{
      subModelId: 'algorithmic-music', label: 'Music from a mood', category: 'music-generation',
      fields: [
        f.select('mood', 'Mood of the piece', MOOD_NAMES),
        f.select('key', 'Musical key (auto: chosen by the seed)', ['auto', ...KEYS]),
        f.integer('tempo', 'Tempo in beats per minute (empty: typical for the mood)', { min: 40, max: 200 }),
        f.duration({ min: 5, max: 120, default: 20 }),
        f.seed(),
      ],
      outputs: [...audioOut, { name: 'midi', dataType: 'file' }, { name: 'seed', dataType: 'number' }, { name: 'output', dataType: 'text' }],
      pricing: { kind: 'per_unit', unit: 'second', microcreditsPerUnit: 1000, inputField: 'duration', defaultQuantity: 20, minimum: 5000 },
      engine: { engine: 'algorithmic-music' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'trim_audio',
    name: 'Trim audio',
    description: 'Cuts a span out of an audio file, sample-accurately, with optional fade in and out (ffmpeg). WAV out.',
    category: 'audio', icon: 'scissors', accent: 'slate', provider: 'local',
    modes: [{
      subModelId: 'trim-audio', label: 'Trim', category: 'audio-utility',
      fields: [
        f.audio(),
        f.number('start', 'Start of the kept span, in seconds', { min: 0, default: 0 }),
        { ...f.duration({ min: 0.01, max: 3600 }), default: undefined, description: 'Length to keep in seconds (empty: to the end)' },
        f.number('fade', 'Fade in and out, in seconds', { min: 0, max: 10, default: 0 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'flat', microcredits: 500 },
      engine: { engine: 'audio-trim' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'concat_audio',
    name: 'Join audio',
    description: 'Joins audio files end to end, optionally with silence between them; inputs of any format, rate or channel count (ffmpeg). WAV out.',
    category: 'audio', icon: 'link', accent: 'sky', provider: 'local',
    modes: [{
      subModelId: 'concat-audio', label: 'Concatenate', category: 'audio-utility',
      fields: [
        audioList('Audio files to join, in order (URLs)', 2, 16),
        f.number('gap', 'Silence between files, in seconds', { min: 0, max: 30, default: 0 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'flat', microcredits: 800 },
      engine: { engine: 'audio-concat' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'mix_audio',
    name: 'Mix audio',
    description: 'Layers audio files on top of each other (voice over music, effects over ambience) with a volume per input, then sets the peak level (ffmpeg). WAV out.',
    category: 'audio', icon: 'layers', accent: 'teal', provider: 'local',
    modes: [{
      subModelId: 'mix-audio', label: 'Mix', category: 'audio-utility',
      fields: [
        audioList('Audio files to mix (URLs)', 2, 8),
        f.json('volumes', 'Volume of each input, in order (1 = unchanged, 0–4); missing entries are 1', {
          schema: { type: 'array', items: { type: 'number', minimum: 0, maximum: 4 }, maxItems: 8 },
        }),
        f.select('length', 'Length of the mix: the longest input, the shortest, or the first', ['longest', 'shortest', 'first']),
        f.boolean('normalize', 'Scale the mix so its peak is at -1 dBFS (off: only lowered if it would clip)', { default: true }),
      ],
      outputs: audioOut,
      pricing: { kind: 'flat', microcredits: 1000 },
      engine: { engine: 'audio-mix' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'change_speed',
    name: 'Change speed',
    description: 'Makes audio faster or slower. By default the pitch is kept (time-stretching); turn that off for a tape-style change that also shifts the pitch (ffmpeg). WAV out.',
    category: 'audio', icon: 'gauge', accent: 'cyan', provider: 'local',
    modes: [{
      subModelId: 'change-speed', label: 'Change speed', category: 'audio-utility',
      fields: [
        f.audio(),
        f.number('speed', 'Speed factor (2 = twice as fast, 0.5 = half speed)', { min: 0.25, max: 4, default: 1.25 }),
        f.boolean('preserve_pitch', 'Keep the pitch while changing the speed', { default: true }),
      ],
      outputs: audioOut,
      pricing: { kind: 'flat', microcredits: 800 },
      engine: { engine: 'audio-speed' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'pitch_shift',
    name: 'Pitch shift',
    description: 'Raises or lowers the pitch by semitones and keeps the length: resampling plus time-stretching (ffmpeg), a classic DSP voice changer, not a neural voice conversion. WAV out.',
    category: 'audio', icon: 'waveform', accent: 'violet', provider: 'local',
    modes: [{
      subModelId: 'pitch-shift', label: 'Pitch shift', category: 'voice-changing',
      fields: [
        f.audio(),
        f.number('semitones', 'Pitch change in semitones (12 = one octave up)', { min: -12, max: 12, default: 3 }),
      ],
      outputs: audioOut,
      pricing: { kind: 'flat', microcredits: 800 },
      engine: { engine: 'audio-pitch' },
      timeoutSeconds: 300,
    }],
  },
  {
    nodeType: 'transcribe_audio',
    name: 'Transcribe (PocketSphinx)',
    description: 'Speech recognition with CMU PocketSphinx (HMM acoustic model and trigram language model), US English, up to 15 minutes. Near word-perfect on clear synthetic speech, weaker on noisy or accented recordings; no punctuation. Also returns word timings. Needs the Debian packages pocketsphinx and pocketsphinx-en-us.',
    category: 'audio', icon: 'captions', accent: 'emerald', provider: 'local',
    modes: [{
      subModelId: 'transcribe-audio', label: 'Speech to text', category: 'transcription',
      fields: [f.audio({ description: 'Speech to transcribe (English): an https URL, a data: URL or a file URL of this service' })],
      outputs: [{ name: 'output', dataType: 'text' }, { name: 'words', dataType: 'any' }],
      // The input's length is only known after fetching it, so the price cannot depend on it.
      pricing: { kind: 'flat', microcredits: 5000 },
      engine: { engine: 'pocketsphinx' },
      timeoutSeconds: 900,
    }],
  },
];
