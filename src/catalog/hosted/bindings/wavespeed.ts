import type { EngineBinding } from '../../types.js';

/**
 * The hosted WaveSpeed sub-models (hosted-catalog.json, providerType `wavespeed`) bound to the WaveSpeed
 * adapter (src/engines/remote/wavespeed.ts): the WaveSpeed model path, the hosted field → WaveSpeed
 * parameter renames, and which fields are media to upload. The two background removers send the same
 * request: WaveSpeed's video-background-remover takes only `video` and an optional `background_image`.
 */
const ws = (model: string, media: Record<string, 'image' | 'audio' | 'video'>, inputMap: Record<string, string | null>, extra: Record<string, unknown> = {}): EngineBinding => ({
  engine: 'wavespeed',
  options: { model, media, inputMap, output: 'video', ...extra },
});

export const bindings: Record<string, EngineBinding> = {
  'video-bg-remover-green-screen': ws('wavespeed-ai/video-background-remover', { video_url: 'video' }, { video_url: 'video' }),
  'video-bg-remover-transparent': ws('wavespeed-ai/video-background-remover', { video_url: 'video' }, { video_url: 'video' }),
  'video-bg-changer': ws('wavespeed-ai/video-background-remover', { video_url: 'video', background_image: 'image' }, { video_url: 'video' }),
  'video-faceswap': ws('wavespeed-ai/video-face-swap', { video_url: 'video', source_image_url: 'image' }, { video_url: 'video', source_image_url: 'face_image' }),
  'video-watermark-remover': ws('wavespeed-ai/video-watermark-remover', { video_url: 'video' }, { video_url: 'video' }),
  'video-upscaler': ws('wavespeed-ai/video-upscaler-pro', { video_url: 'video' }, { video_url: 'video' }),
  'infinitalk-video-lipsync': ws('wavespeed-ai/infinitetalk/video-to-video', { video_url: 'video', audio_url: 'audio' }, { video_url: 'video', audio_url: 'audio' }),
  'infinitalk-lipsync': ws('wavespeed-ai/infinitetalk', { image_url: 'image', audio_url: 'audio', mask_image: 'image' }, { image_url: 'image', audio_url: 'audio' }, { optional: ['mask_image'] }),
};
