import type { EngineBinding } from '../../types.js';

/**
 * Hosted models served by fal.ai (engines/remote/fal.ts), keyed by hosted sub-model id. Endpoint ids are
 * those fal publishes (the hosted catalog names the text-to-x endpoint of each model; the image-to-x and
 * reference endpoints follow fal's naming of the same family). Hosted input names that differ from fal's
 * parameters, and hosted option values fal spells otherwise, are mapped here.
 */
const FORMAT = { output_format: { JPEG: 'jpeg', PNG: 'png', WebP: 'webp' } };
const FLUX_SIZE = { '1:1': 'square_hd', '4:3': 'landscape_4_3', '3:4': 'portrait_4_3', '16:9': 'landscape_16_9', '9:16': 'portrait_16_9', Auto: null };

const fal = (model: string, o: { inputMap?: Record<string, string | null>; valueMap?: Record<string, Record<string, unknown>>; params?: Record<string, unknown>; output?: 'text'; objectFrom?: Record<string, unknown>; firstOf?: string[] } = {}): EngineBinding => ({
  engine: 'fal',
  options: { model, ...o },
});

/** Hosted camelCase names → fal's snake_case parameters. */
const SNAKE = (names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => [n, n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]));

const flux = (model: string) => fal(model, {
  valueMap: { ...FORMAT, image_size: FLUX_SIZE },
  // "Custom" sends the width and height fields as fal's { width, height } image_size.
  objectFrom: { image_size: { when: 'Custom', fields: ['width', 'height'] } },
});

const nano = (model: string) => fal(model, { valueMap: FORMAT });

export const bindings: Record<string, EngineBinding> = {
  'cassette-ai-sfx': fal('cassetteai/sound-effects-generator'),
  'minimax-tts': fal('fal-ai/minimax/speech-2.8-hd', {
    objectFrom: {
      voice_setting: { fields: { voice_id: 'voice_id', speed: 'speed', vol: 'vol', voice_pitch: 'pitch', emotion: 'emotion', english_normalization: 'english_normalization' } },
      audio_setting: { fields: { format: 'format', sample_rate: 'sample_rate', bitrate: 'bitrate', channel: 'channel' } },
    },
  }),
  'minimax-voice-clone': fal('fal-ai/minimax/voice-clone', { inputMap: { audioUrl: 'audio_url', voiceName: null } }),
  'fal-demucs': fal('fal-ai/demucs', { inputMap: SNAKE(['audioUrl', 'outputFormat']) }),
  'audio-separate': fal('fal-ai/sam-audio/separate', { inputMap: SNAKE(['audioUrl', 'outputFormat', 'predictSpans', 'rerankingCandidates', 'maxChunkDuration', 'chunkOverlap']) }),
  'audio-visual-separate': fal('fal-ai/sam-audio/visual-separate', { inputMap: SNAKE(['videoUrl', 'maskVideoUrl', 'outputFormat', 'rerankingCandidates', 'maxChunkDuration', 'chunkOverlap']) }),
  'seed-audio-1-0': fal('bytedance/seed-audio-1.0'),
  'flux-2-max-text': flux('fal-ai/flux-2-max'),
  'flux-2-max-edit': flux('fal-ai/flux-2-max/edit'),
  'nano-banana-2-text': nano('fal-ai/nano-banana-2'),
  'nano-banana-2-edit': nano('fal-ai/nano-banana-2/edit'),
  'nano-banana-pro-text': nano('fal-ai/nano-banana-pro'),
  'nano-banana-pro-edit': nano('fal-ai/nano-banana-pro/edit'),
  'topaz-upscale': fal('topaz/upscale/image/precision', { valueMap: FORMAT }),
  'meshy-v6-preview-text': fal('fal-ai/meshy/v6-preview/text-to-3d'),
  'meshy-v6-preview-edit': fal('fal-ai/meshy/v6-preview/image-to-3d', { inputMap: { image_urls: 'image_url' }, firstOf: ['image_urls'] }),
  'seedance-2.0-text-to-video': fal('bytedance/seedance-2.0/text-to-video'),
  'seedance-2.0-image-to-video': fal('bytedance/seedance-2.0/image-to-video'),
  'seedance-2.0-fast-text-to-video': fal('bytedance/seedance-2.0/fast/text-to-video'),
  'seedance-2.0-fast-image-to-video': fal('bytedance/seedance-2.0/fast/image-to-video'),
  'seedance-2.0-reference-to-video': fal('bytedance/seedance-2.0/reference-to-video'),
  'seedance-2.0-fast-reference-to-video': fal('bytedance/seedance-2.0/fast/reference-to-video'),
  'seedance-2.5-text-to-video': fal('bytedance/seedance-2.5/text-to-video'),
  'seedance-2.5-image-to-video': fal('bytedance/seedance-2.5/image-to-video'),
  'seedance-2.5-reference-to-video': fal('bytedance/seedance-2.5/reference-to-video'),
  'minimax-h3-max-text-to-video': fal('minimax/h3-max/text-to-video'),
  'minimax-h3-max-image-to-video': fal('minimax/h3-max/image-to-video'),
  'minimax-h3-max-reference-to-video': fal('minimax/h3-max/reference-to-video'),
  'veed-video-fast-bg-remover': fal('veed/video-background-removal/fast'),
  'veed-video-regular-bg-remover': fal('veed/video-background-removal'),
  'veed-fabric-lipsync': fal('veed/fabric-1.0'),
  'veed-subtitles': fal('veed/subtitles'),
  'xai-grok-text-to-video': fal('xai/grok-imagine-video/v1.5/text-to-video'),
  'xai-grok-image-to-video': fal('xai/grok-imagine-video/v1.5/image-to-video'),
  'xai-grok-video-edit': fal('xai/grok-imagine-video/v1.5/reference-to-video'),
  'kling-v3-pro-text-to-video': fal('fal-ai/kling-video/v3/pro/text-to-video'),
  'kling-v3-pro-image-to-video': fal('fal-ai/kling-video/v3/pro/image-to-video'),
  'kling-v3-pro-motion-control': fal('fal-ai/kling-video/v3/pro/motion-control'),
  'kling-o3-pro-video-edit': fal('fal-ai/kling-video/o3/pro/video-to-video/edit'),
};
