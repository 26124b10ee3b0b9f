import { f } from '../fields.js';
import type { EngineBinding, FieldSpec, FineCategory, ModeDef, ModelDef, OutputSpec } from '../types.js';
import type { PricingRule } from '../../pricing/types.js';

/**
 * Models that run on remote providers (spec/local-models.md, last section: what no local engine can do
 * honestly). Each is named after the model it fronts and says where it runs; it is available only when
 * the operator has configured that provider (engines/remote/index.ts). Provider model ids are those the
 * providers publish; prices are in microcredits (1 credit = 1,000,000) at roughly the providers' own
 * rates.
 *
 * Models the hosted service also lists (flux_2_max, nano_banana_pro, gpt_image_2, kling_v3_pro, seedance_2_0,
 * openai_tts, claude_sonnet_4_6, deepseek_v3_2, …) are defined from the hosted catalog instead, with its
 * inputs and prices (catalog/hosted/load.ts); the models here are those the hosted service lacks.
 */

// ---------- outputs ----------
const IMAGES: OutputSpec[] = [{ name: 'result', dataType: 'image' }];
const VIDEOS: OutputSpec[] = [{ name: 'result', dataType: 'video' }];
const AUDIO: OutputSpec[] = [{ name: 'result', dataType: 'audio' }];
const TEXT: OutputSpec[] = [{ name: 'output', dataType: 'text' }];

// ---------- shared fields (exported: operator model files name them instead of spelling them out) ----------
export const commonFields = {
  prompt: (o: Partial<FieldSpec> = {}) => f.prompt(o),
  negative_prompt: () => f.text('negative_prompt', 'What the image should not contain', { maxLength: 2000 }),
  image_url: (description?: string) => f.image(description ? { description } : {}),
  image_urls: (max = 8, description?: string) => f.images({ maxItems: max, ...(description ? { description } : {}) }),
  audio_url: (description?: string) => f.audio(description ? { description } : {}),
  video_url: (description?: string) => f.video(description ? { description } : {}),
  num_images: (max = 4) => f.integer('num_images', 'How many images to make', { min: 1, max, default: 1 }),
  seed: () => f.seed(),
  aspect_ratio: (options: string[] = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9']) =>
    f.select('aspect_ratio', 'Shape of the output (width:height)', options),
  resolution: (options: string[] = ['1K', '2K', '4K']) => f.select('resolution', 'Output resolution tier (long side about 1k, 2k or 4k pixels)', options),
  duration: (options: number[]) =>
    f.duration({ min: Math.min(...options), max: Math.max(...options), default: options[0], schema: { enum: options }, description: `Length in seconds (${options.join(' or ')})` }),
  text: (max = 5000) => f.text('text', 'The text to speak', { required: true, maxLength: max }),
  system: () => f.text('system', 'Instructions that set the assistant’s behaviour', { maxLength: 8000 }),
  max_tokens: (max = 8192, def = 1024) => f.integer('max_tokens', 'Most tokens the answer may have', { min: 1, max, default: def }),
  // No default: a filled-in default is sent as if the caller chose it, and some providers refuse any value
  // but their own (issue 28); left out, the provider's own default applies.
  temperature: () => f.number('temperature', 'Randomness: 0 is focused and repeatable, higher is more varied (the provider’s default when left out)', { min: 0, max: 2 }),
} as const;

const c = commonFields;
const LLM_FIELDS = (maxTokens = 8192, temperature = true): FieldSpec[] => [c.prompt({ maxLength: 100_000 }), c.system(), c.max_tokens(maxTokens), ...(temperature ? [c.temperature()] : [])];

// ---------- pricing ----------
const RES_BP = { '1K': 10_000, '2K': 15_000, '4K': 25_000 };
const perImage = (microcredits: number, byResolution = false): PricingRule => ({
  kind: 'per_unit', unit: 'image', microcreditsPerUnit: microcredits, inputField: 'num_images', defaultQuantity: 1,
  ...(byResolution ? { multipliers: [{ field: 'resolution', basisPoints: RES_BP }] } : {}),
});
const perSecond = (microcredits: number, defaultSeconds: number, resolutions?: Record<string, number>, minimum?: number): PricingRule => ({
  kind: 'per_unit', unit: 'second', microcreditsPerUnit: microcredits, inputField: 'duration', defaultQuantity: defaultSeconds,
  ...(minimum ? { minimum } : {}),
  ...(resolutions ? { multipliers: [{ field: 'resolution', basisPoints: resolutions }] } : {}),
});
const per1kChars = (microcredits: number): PricingRule => ({ kind: 'per_unit', unit: '1k_chars', microcreditsPerUnit: microcredits, inputField: 'text', minimum: Math.ceil(microcredits / 10) });
const per1kTokens = (microcredits: number): PricingRule => ({ kind: 'per_unit', unit: '1k_tokens', microcreditsPerUnit: microcredits, inputField: 'prompt', minimum: Math.ceil(microcredits / 10) });
const flat = (microcredits: number): PricingRule => ({ kind: 'flat', microcredits });

// ---------- bindings ----------
const fal = (model: string, extra: Record<string, unknown> = {}): EngineBinding => ({ engine: 'fal', options: { model, ...extra } });
const replicate = (model: string, extra: Record<string, unknown> = {}): EngineBinding => ({ engine: 'replicate', options: { model, ...extra } });
const openai = (operation: string, model: string, extra: Record<string, unknown> = {}): EngineBinding => ({ engine: 'openai', options: { operation, model, ...extra } });

const ASPECT_TO_FAL_SIZE = { '1:1': 'square_hd', '16:9': 'landscape_16_9', '9:16': 'portrait_16_9', '4:3': 'landscape_4_3', '3:4': 'portrait_4_3' };

interface ModeSpec {
  id: string;
  label: string;
  category: FineCategory;
  fields: FieldSpec[];
  outputs: OutputSpec[];
  pricing: PricingRule;
  engine: EngineBinding;
  description?: string;
  timeoutSeconds?: number;
  features?: string[];
}

const mode = (m: ModeSpec): ModeDef => ({
  subModelId: m.id, label: m.label, category: m.category, fields: m.fields, outputs: m.outputs, pricing: m.pricing, engine: m.engine,
  ...(m.description ? { description: m.description } : {}),
  ...(m.features ? { features: m.features } : {}),
  timeoutSeconds: m.timeoutSeconds ?? (m.outputs === VIDEOS ? 1200 : m.outputs === TEXT ? 300 : 600),
});

const WHERE: Record<string, string> = {
  fal: 'Runs on fal.ai when FAL_KEY is set.',
  replicate: 'Runs on Replicate when REPLICATE_API_TOKEN is set.',
  openai: 'Runs on the OpenAI API when OPENAI_API_KEY is set.',
  comfyui: 'Runs on your ComfyUI server when COMFYUI_URL is set.',
};

const STYLE = {
  image: { icon: 'image', accent: '#7c3aed' },
  video: { icon: 'film', accent: '#db2777' },
  lipsync: { icon: 'scan-face', accent: '#e11d48' },
  speech: { icon: 'audio-lines', accent: '#0891b2' },
  sound: { icon: 'volume-2', accent: '#0d9488' },
  music: { icon: 'music', accent: '#059669' },
  transcribe: { icon: 'captions', accent: '#2563eb' },
  llm: { icon: 'message-square', accent: '#ea580c' },
};

const model = (
  nodeType: string,
  name: string,
  what: string,
  category: ModelDef['category'],
  provider: 'fal' | 'replicate' | 'openai' | 'comfyui',
  style: { icon: string; accent: string },
  modes: ModeDef[],
): ModelDef => ({ nodeType, name, description: `${what} ${WHERE[provider]}`, category, provider, ...style, modes });

/** A text-to-image mode. */
const t2i = (id: string, engine: EngineBinding, price: number, o: { num?: number; aspect?: boolean; resolution?: boolean; negative?: boolean; seed?: boolean; extra?: FieldSpec[] } = {}): ModeDef =>
  mode({
    id, label: 'Text to image', category: 'text-to-image', outputs: IMAGES, engine, pricing: perImage(price, o.resolution),
    fields: [
      c.prompt(),
      ...(o.negative ? [c.negative_prompt()] : []),
      ...(o.aspect === false ? [] : [c.aspect_ratio()]),
      ...(o.resolution ? [c.resolution()] : []),
      // a model that makes one image a run gets no count field; pricing then assumes 1
      ...((o.num ?? 4) > 1 ? [c.num_images(o.num ?? 4)] : []),
      ...(o.extra ?? []),
      ...(o.seed === false ? [] : [c.seed()]),
    ],
  });

/** An image editing mode: a prompt applied to one or more reference images. */
const edit = (id: string, engine: EngineBinding, price: number, o: { maxImages?: number; resolution?: boolean; num?: number } = {}): ModeDef =>
  mode({
    id, label: 'Edit image', category: 'image-to-image', outputs: IMAGES, engine, pricing: perImage(price, o.resolution),
    fields: [
      c.prompt({ description: 'The change to make, in words' }),
      c.image_urls(o.maxImages ?? 8, 'Images to edit or combine (URLs)'),
      ...(o.resolution ? [c.resolution()] : []),
      c.num_images(o.num ?? 4),
      c.seed(),
    ],
  });

const t2v = (id: string, engine: EngineBinding, perSec: number, durations: number[], o: { resolutions?: Record<string, number>; audio?: boolean; negative?: boolean; aspect?: boolean; seed?: boolean } = {}): ModeDef =>
  mode({
    id, label: 'Text to video', category: 'text-to-video', outputs: VIDEOS, engine, pricing: perSecond(perSec, durations[0]!, o.resolutions),
    fields: [
      c.prompt(),
      ...(o.negative ? [c.negative_prompt()] : []),
      c.duration(durations),
      ...(o.aspect === false ? [] : [c.aspect_ratio(['16:9', '9:16', '1:1'])]),
      ...(o.resolutions ? [f.select('resolution', 'Video resolution', Object.keys(o.resolutions))] : []),
      ...(o.audio ? [f.boolean('generate_audio', 'Also generate a soundtrack (speech, effects, music)', { default: true })] : []),
      ...(o.seed === false ? [] : [c.seed()]),
    ],
  });

const i2v = (id: string, engine: EngineBinding, perSec: number, durations: number[], o: { resolutions?: Record<string, number>; promptRequired?: boolean; seed?: boolean } = {}): ModeDef =>
  mode({
    id, label: 'Image to video', category: 'image-to-video', outputs: VIDEOS, engine, pricing: perSecond(perSec, durations[0]!, o.resolutions),
    fields: [
      c.prompt({ required: o.promptRequired ?? true, description: 'How the scene should move' }),
      c.image_url('First frame: an https URL, a data: URL or a file URL of this service'),
      c.duration(durations),
      ...(o.resolutions ? [f.select('resolution', 'Video resolution', Object.keys(o.resolutions))] : []),
      ...(o.seed === false ? [] : [c.seed()]),
    ],
  });

const llm = (id: string, engine: EngineBinding, price: number, o: { multimodal?: boolean; maxTokens?: number; temperature?: boolean } = {}): ModeDef =>
  mode({
    id, label: o.multimodal ? 'Chat with text and images' : 'Chat', category: o.multimodal ? 'multimodal-llm' : 'text-generation', outputs: TEXT, engine, pricing: per1kTokens(price),
    fields: [...LLM_FIELDS(o.maxTokens, o.temperature !== false), ...(o.multimodal ? [{ ...c.image_urls(8, 'Images to look at (optional)'), required: false, minItems: 0 }] : [])],
  });

const SDXL_WORKFLOW = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: '{{num_images}}' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: '{{negative_prompt}}', clip: ['4', 1] } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 25, cfg: 7, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'atelier' } },
};

const VIDEO_RES = { '720p': 10_000, '1080p': 15_000 };

export const models: ModelDef[] = [
  // ---------------- image ----------------
  model('flux_2_pro', 'FLUX.2 [pro]', 'Black Forest Labs’ FLUX.2 pro diffusion model: photoreal text-to-image with accurate typography.', 'image', 'fal', STYLE.image, [
    t2i('flux-2-pro', fal('fal-ai/flux-2-pro', { inputMap: { aspect_ratio: 'image_size' }, valueMap: { aspect_ratio: ASPECT_TO_FAL_SIZE }, params: { output_format: 'png' } }), 45_000),
  ]),
  model('flux_2_dev', 'FLUX.2 [dev]', 'The open-weights FLUX.2 dev model: fast text-to-image at a lower price.', 'image', 'fal', STYLE.image, [
    t2i('flux-2-dev', fal('fal-ai/flux-2', { inputMap: { aspect_ratio: 'image_size' }, valueMap: { aspect_ratio: ASPECT_TO_FAL_SIZE } }), 30_000, { negative: false }),
  ]),
  model('seedream_4', 'Seedream 4.0', 'ByteDance’s Seedream 4.0: text-to-image and multi-reference editing up to 4K.', 'image', 'fal', STYLE.image, [
    t2i('seedream-4-text', fal('fal-ai/bytedance/seedream/v4/text-to-image', { inputMap: { aspect_ratio: 'image_size' }, valueMap: { aspect_ratio: ASPECT_TO_FAL_SIZE } }), 30_000, { num: 6 }),
    edit('seedream-4-edit', fal('fal-ai/bytedance/seedream/v4/edit'), 30_000, { maxImages: 10, num: 6 }),
  ]),
  model('ideogram_v3', 'Ideogram 3.0', 'Ideogram 3.0: text-to-image known for legible text, logos and graphic design.', 'image', 'fal', STYLE.image, [
    t2i('ideogram-v3', fal('fal-ai/ideogram/v3', { inputMap: { aspect_ratio: 'image_size' }, valueMap: { aspect_ratio: ASPECT_TO_FAL_SIZE } }), 60_000, {
      negative: true,
      extra: [f.select('rendering_speed', 'Speed against quality (also sets the price)', ['BALANCED', 'TURBO', 'QUALITY']), f.select('style', 'Overall look', ['AUTO', 'GENERAL', 'REALISTIC', 'DESIGN'])],
    }),
  ]),
  model('recraft_v3', 'Recraft V3', 'Recraft V3: text-to-image in photographic, illustration and vector-art styles.', 'image', 'fal', STYLE.image, [
    t2i('recraft-v3', fal('fal-ai/recraft/v3/text-to-image', { inputMap: { aspect_ratio: 'image_size' }, valueMap: { aspect_ratio: ASPECT_TO_FAL_SIZE } }), 40_000, {
      num: 1,
      extra: [f.select('style', 'Image style', ['realistic_image', 'digital_illustration', 'vector_illustration', 'realistic_image/studio_portrait', 'digital_illustration/hand_drawn'])],
    }),
  ]),
  model('imagen_4', 'Imagen 4', 'Google’s Imagen 4: detailed photoreal text-to-image.', 'image', 'replicate', STYLE.image, [
    t2i('imagen-4', replicate('google/imagen-4', { params: { output_format: 'png', safety_filter_level: 'block_only_high' } }), 40_000, { num: 1, seed: false }),
  ]),
  model('sdxl_comfyui', 'Stable Diffusion XL (ComfyUI)', 'Stable Diffusion XL 1.0 run by a ComfyUI workflow on your own GPU server; needs the checkpoint sd_xl_base_1.0.safetensors in its models folder.', 'image', 'comfyui', STYLE.image, [
    mode({
      id: 'sdxl-comfyui', label: 'Text to image', category: 'text-to-image', outputs: IMAGES, pricing: perImage(5_000),
      engine: { engine: 'comfyui', options: { workflow: SDXL_WORKFLOW, defaults: { negative_prompt: '', width: 1024, height: 1024, num_images: 1 } } },
      fields: [
        c.prompt(), c.negative_prompt(),
        f.integer('width', 'Width in pixels (a multiple of 8)', { min: 512, max: 2048, default: 1024, schema: { multipleOf: 8 } }),
        f.integer('height', 'Height in pixels (a multiple of 8)', { min: 512, max: 2048, default: 1024, schema: { multipleOf: 8 } }),
        c.num_images(4), c.seed(),
      ],
    }),
  ]),

  // ---------------- video ----------------
  model('veo_3_1', 'Veo 3.1', 'Google’s Veo 3.1: text-to-video with synchronised sound (dialogue, effects, ambience).', 'video', 'fal', STYLE.video, [
    t2v('veo-3-1', fal('fal-ai/veo3.1', { valueMap: { duration: { 4: '4s', 6: '6s', 8: '8s' } } }), 150_000, [8, 4, 6], { audio: true, resolutions: VIDEO_RES }),
  ]),
  model('sora_2', 'Sora 2', 'OpenAI’s Sora 2: text-to-video with sound.', 'video', 'fal', STYLE.video, [
    t2v('sora-2', fal('fal-ai/sora-2/text-to-video'), 100_000, [4, 8, 12], { seed: false }),
  ]),
  model('hailuo_02', 'Hailuo 02', 'MiniMax Hailuo 02: physically convincing motion from a prompt or a first frame.', 'video', 'fal', STYLE.video, [
    t2v('hailuo-02-text', fal('fal-ai/minimax/hailuo-02/standard/text-to-video'), 50_000, [6, 10], { aspect: false, seed: false }),
    i2v('hailuo-02-image', fal('fal-ai/minimax/hailuo-02/standard/image-to-video'), 50_000, [6, 10], { seed: false }),
  ]),
  model('wan_2_5', 'Wan 2.5', 'Alibaba’s Wan 2.5 text-to-video model with audio.', 'video', 'replicate', STYLE.video, [
    t2v('wan-2-5', replicate('wan-video/wan-2.5-t2v', { inputMap: { resolution: 'size' }, valueMap: { resolution: { '720p': '1280*720', '1080p': '1920*1080' } } }), 60_000, [5, 10], { negative: true, resolutions: VIDEO_RES }),
  ]),
  model('runway_gen4', 'Runway Gen-4 Turbo', 'Runway Gen-4 Turbo: animates a first frame into a consistent video clip.', 'video', 'replicate', STYLE.video, [
    i2v('runway-gen4', replicate('runwayml/gen4-turbo', { inputMap: { image_url: 'image' } }), 50_000, [5, 10], { promptRequired: false }),
  ]),

  // ---------------- lipsync ----------------
  model('sync_lipsync_2', 'sync. Lipsync 2', 'sync.’s lipsync-2: neural lip synchronisation of a video to a new audio track. Priced per clip (up to 5 minutes).', 'video', 'fal', STYLE.lipsync, [
    mode({
      id: 'sync-lipsync-2', label: 'Lipsync', category: 'lipsync', outputs: VIDEOS, engine: fal('fal-ai/sync-lipsync/v2'), pricing: flat(300_000), timeoutSeconds: 1800,
      fields: [c.video_url('Video of a speaking face'), c.audio_url('The speech to lip-sync to'), f.select('sync_mode', 'When audio and video lengths differ', ['cut_off', 'loop', 'bounce', 'silence', 'remap'])],
    }),
  ]),
  model('latentsync', 'LatentSync', 'ByteDance’s LatentSync: open-source diffusion lipsync of a video to an audio track. Priced per clip (up to 2 minutes).', 'video', 'fal', STYLE.lipsync, [
    mode({
      id: 'latentsync', label: 'Lipsync', category: 'lipsync', outputs: VIDEOS, engine: fal('fal-ai/latentsync'), pricing: flat(150_000), timeoutSeconds: 1800,
      fields: [c.video_url('Video of a speaking face'), c.audio_url('The speech to lip-sync to'), f.number('guidance_scale', 'How closely to follow the audio', { min: 1, max: 2, default: 1.5 }), c.seed()],
    }),
  ]),

  // ---------------- audio ----------------
  model('elevenlabs_tts', 'ElevenLabs Multilingual v2', 'ElevenLabs’ multilingual neural text-to-speech: natural voices in 29 languages.', 'audio', 'fal', STYLE.speech, [
    mode({
      id: 'elevenlabs-tts', label: 'Text to speech', category: 'text-to-speech', outputs: AUDIO, engine: fal('fal-ai/elevenlabs/tts/multilingual-v2'), pricing: per1kChars(100_000),
      fields: [c.text(5000), f.select('voice', 'Voice', ['Rachel', 'Aria', 'Roger', 'Sarah', 'Laura', 'Charlie', 'George', 'Callum', 'River', 'Liam']), f.number('stability', 'Voice stability: lower is more expressive', { min: 0, max: 1, default: 0.5 }), f.number('speed', 'Speaking speed', { min: 0.7, max: 1.2, default: 1 })],
    }),
  ]),
  model('minimax_speech', 'MiniMax Speech-02 HD', 'MiniMax Speech-02 HD: expressive multilingual neural text-to-speech.', 'audio', 'fal', STYLE.speech, [
    mode({
      id: 'minimax-speech', label: 'Text to speech', category: 'text-to-speech', outputs: AUDIO, engine: fal('fal-ai/minimax/speech-02-hd'), pricing: per1kChars(100_000),
      fields: [c.text(5000), f.select('voice', 'Voice', ['Wise_Woman', 'Friendly_Person', 'Deep_Voice_Man', 'Calm_Woman', 'Casual_Guy', 'Lively_Girl']), f.select('emotion', 'Emotion', ['neutral', 'happy', 'sad', 'angry', 'surprised'])],
    }),
  ]),
  model('whisper_large_v3', 'Whisper large-v3', 'OpenAI’s Whisper large-v3 speech recognition: transcripts in about 100 languages. Priced per file.', 'audio', 'fal', STYLE.transcribe, [
    mode({
      id: 'whisper-large-v3', label: 'Transcribe', category: 'transcription', outputs: TEXT, engine: fal('fal-ai/whisper', { output: 'text', params: { task: 'transcribe', chunk_level: 'segment' }, valueMap: { language: { auto: null } } }), pricing: flat(20_000),
      fields: [c.audio_url('Speech to transcribe (an audio file)'), f.select('language', 'Spoken language (auto to detect)', ['auto', 'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'ja', 'zh', 'ko', 'ru', 'ar', 'hi'])],
    }),
  ]),
  model('elevenlabs_sound_effects', 'ElevenLabs Sound Effects', 'ElevenLabs’ neural sound-effect generator: any sound described in words.', 'audio', 'fal', STYLE.sound, [
    mode({
      id: 'elevenlabs-sound-effects', label: 'Sound effect', category: 'sound-effects', outputs: AUDIO, engine: fal('fal-ai/elevenlabs/sound-effects', { inputMap: { prompt: 'text', duration: 'duration_seconds' } }), pricing: perSecond(4_000, 5, undefined, 4_000),
      fields: [c.prompt({ description: 'The sound, in words ("a door creaks open in an empty hall")', maxLength: 1000 }), f.duration({ min: 1, max: 22, default: 5 })],
    }),
  ]),
  model('stable_audio', 'Stable Audio Open', 'Stability AI’s Stable Audio Open: sound effects, loops and short music from a prompt.', 'audio', 'fal', STYLE.music, [
    mode({
      id: 'stable-audio', label: 'Generate audio', category: 'music-generation', outputs: AUDIO, engine: fal('fal-ai/stable-audio', { inputMap: { duration: 'seconds_total' } }), pricing: perSecond(2_000, 30),
      fields: [c.prompt({ maxLength: 1000 }), f.duration({ min: 1, max: 47, default: 30 }), f.integer('steps', 'Diffusion steps: more is slower and cleaner', { min: 10, max: 150, default: 100 })],
    }),
  ]),
  model('lyria_2', 'Lyria 2', 'Google’s Lyria 2: 30-second instrumental music clips at 48 kHz from a prompt. Priced per clip.', 'audio', 'fal', STYLE.music, [
    mode({
      id: 'lyria-2', label: 'Generate music', category: 'music-generation', outputs: AUDIO, engine: fal('fal-ai/lyria2'), pricing: flat(105_000),
      fields: [c.prompt({ maxLength: 2000 }), c.negative_prompt(), c.seed()],
    }),
  ]),
  model('minimax_music', 'MiniMax Music', 'MiniMax Music: songs of about a minute, with vocals, from lyrics and a style prompt. Priced per song.', 'audio', 'fal', STYLE.music, [
    mode({
      id: 'minimax-music', label: 'Generate a song', category: 'music-generation', outputs: AUDIO, engine: fal('fal-ai/minimax-music/v1.5'), pricing: flat(60_000),
      fields: [
        c.prompt({ description: 'Style, mood and instruments', maxLength: 300 }),
        f.text('lyrics', 'Lyrics, with [verse] and [chorus] tags', { required: true, maxLength: 3000 }),
      ],
    }),
  ]),
  model('elevenlabs_voice_changer', 'ElevenLabs Voice Changer', 'ElevenLabs speech-to-speech: the same words and delivery in another voice. Priced per clip (up to 5 minutes).', 'audio', 'fal', STYLE.speech, [
    mode({
      id: 'elevenlabs-voice-changer', label: 'Change voice', category: 'voice-changing', outputs: AUDIO, engine: fal('fal-ai/elevenlabs/voice-changer'), pricing: flat(80_000),
      fields: [c.audio_url('Speech to re-voice'), f.select('voice', 'Target voice', ['Rachel', 'Aria', 'Roger', 'Sarah', 'Laura', 'Charlie', 'George', 'Callum', 'River', 'Liam']), f.boolean('remove_background_noise', 'Clean up background noise first', { default: false })],
    }),
  ]),
  model('audio_translate', 'ElevenLabs Dubbing', 'ElevenLabs dubbing: speech translated into another language in the speakers’ own voices. Priced per clip (up to 5 minutes).', 'audio', 'fal', STYLE.speech, [
    mode({
      id: 'audio-translate', label: 'Translate speech', category: 'audio-translation', outputs: AUDIO, engine: fal('fal-ai/elevenlabs/dubbing'), pricing: flat(400_000), timeoutSeconds: 1800,
      fields: [c.audio_url('Speech to translate'), f.select('target_lang', 'Language to translate into', ['es', 'fr', 'de', 'it', 'pt', 'ja', 'zh', 'ko', 'hi', 'ar', 'en']), f.select('source_lang', 'Language spoken (auto to detect)', ['auto', 'en', 'es', 'fr', 'de', 'it', 'pt', 'ja', 'zh'])],
    }),
  ]),

  // ---------------- llm ----------------
  model('gpt_5_4', 'GPT-5.4', 'OpenAI’s GPT-5.4 chat model: reasoning, writing and code.', 'llm', 'openai', STYLE.llm, [
    // GPT-5 models take only their own sampling temperature: the field is not offered (issue 28).
    llm('gpt-5-4', openai('chat', 'gpt-5.4', { maxTokensParam: 'max_completion_tokens' }), 12_000, { maxTokens: 32_768, temperature: false }),
  ]),
  model('gemini_3_1_pro', 'Gemini 3.1 Pro', 'Google’s Gemini 3.1 Pro: multimodal reasoning over text and images.', 'llm', 'replicate', STYLE.llm, [
    llm('gemini-3-1-pro', replicate('google/gemini-3.1-pro', { output: 'text', inputMap: { system: 'system_instruction', image_urls: 'images', max_tokens: 'max_output_tokens' } }), 10_000, { multimodal: true, maxTokens: 65_536 }),
  ]),
  model('llama_4_maverick', 'Llama 4 Maverick', 'Meta’s Llama 4 Maverick (17B active, 128 experts): an open-weights multilingual chat model.', 'llm', 'replicate', STYLE.llm, [
    llm('llama-4-maverick', replicate('meta/llama-4-maverick-instruct', { output: 'text', inputMap: { system: 'system_prompt' } }), 3_000),
  ]),
  model('qwen_3', 'Qwen3 235B', 'Alibaba’s Qwen3-235B-A22B instruct model: open weights, strong multilingual reasoning.', 'llm', 'replicate', STYLE.llm, [
    llm('qwen-3', replicate('qwen/qwen3-235b-a22b-instruct-2507', { output: 'text', systemInPrompt: true }), 2_500),
  ]),

  // ---------------- deprecated (kept so old runs and workflows resolve; refused at run time) ----------------
  { ...model('flux_1_pro', 'FLUX1.1 [pro]', 'Black Forest Labs’ FLUX1.1 pro, replaced by FLUX.2 [pro].', 'image', 'fal', STYLE.image, [t2i('flux-1-pro', fal('fal-ai/flux-pro/v1.1'), 40_000)]), deprecated: { at: '2026-01-15T00:00:00Z', replacement: 'flux_2_pro' } },
  { ...model('dall_e_3', 'DALL·E 3', 'OpenAI’s DALL·E 3, replaced by GPT Image 2.', 'image', 'openai', STYLE.image, [t2i('dall-e-3', openai('image', 'dall-e-3', { params: { response_format: 'b64_json' } }), 40_000, { num: 1, aspect: false, seed: false })]), deprecated: { at: '2026-03-01T00:00:00Z', replacement: 'gpt_image_2' } },
  { ...model('kling_v1', 'Kling 1.0', 'Kuaishou’s first Kling video model, replaced by Kling 3.0 Pro.', 'video', 'fal', STYLE.video, [t2v('kling-v1', fal('fal-ai/kling-video/v1/standard/text-to-video'), 50_000, [5, 10])]), deprecated: { at: '2025-12-01T00:00:00Z', replacement: 'kling_v3_pro' } },
  { ...model('gpt_4o', 'GPT-4o', 'OpenAI’s GPT-4o, replaced by GPT-5.4.', 'llm', 'openai', STYLE.llm, [llm('gpt-4o', openai('chat', 'gpt-4o'), 7_000, { multimodal: true })]), deprecated: { at: '2026-02-01T00:00:00Z', replacement: 'gpt_5_4' } },
];
