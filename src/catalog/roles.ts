import type { FineCategory, Role } from './types.js';

/** What each fine category does, as search reports it (spec 4.5). */
export const CATEGORY_ROLES: Record<FineCategory, Role> = {
  'text-to-image': 'GENERATE',
  'image-to-image': 'EDIT',
  'image-to-text': 'UNDERSTAND',
  'image-understanding': 'UNDERSTAND',
  'image-utility': 'EDIT',
  'text-to-video': 'GENERATE',
  'image-to-video': 'TRANSFORM',
  'video-to-video': 'EDIT',
  'video-utility': 'EDIT',
  lipsync: 'TRANSFORM',
  'text-to-speech': 'GENERATE',
  'voice-changing': 'EDIT',
  transcription: 'TRANSCRIBE',
  'music-generation': 'GENERATE',
  'sound-effects': 'GENERATE',
  'audio-utility': 'EDIT',
  'audio-translation': 'TRANSFORM',
  'text-generation': 'GENERATE',
  'multimodal-llm': 'UNDERSTAND',
  'text-utility': 'TRANSFORM',
  llm: 'GENERATE',
  utility: 'TRANSFORM',
  'reference-to-video': 'GENERATE',
  'bg-remover': 'EDIT',
  'bg-changer': 'EDIT',
  faceswap: 'EDIT',
  'watermark-remover': 'EDIT',
  upscaler: 'EDIT',
  'audio-separation': 'TRANSFORM',
  'audio-isolation': 'EDIT',
  'voice-cloning': 'TRANSFORM',
  'stem-splitting': 'TRANSFORM',
  'podcast-summarization': 'TRANSCRIBE',
  'social-media-video-downloader': 'TRANSFORM',
  'video-clips': 'EDIT',
};

export const CATEGORY_LABELS: Record<string, string> = {
  image: 'Image', video: 'Video', audio: 'Audio', llm: 'Language models', utility: 'Utilities',
};

/** Extra words that lead to a fine category in search, beyond the category's own name. */
export const CATEGORY_SYNONYMS: Partial<Record<FineCategory, string[]>> = {
  'text-to-image': ['t2i', 'image generation', 'generate image', 'picture'],
  'image-to-image': ['i2i', 'image edit', 'edit image', 'upscale', 'upscaler', 'background'],
  'image-to-text': ['ocr', 'caption', 'describe'],
  'image-understanding': ['detect', 'detection', 'faces', 'moderation', 'vision'],
  'text-to-video': ['t2v', 'video generation'],
  'image-to-video': ['i2v', 'animate'],
  lipsync: ['lip sync', 'lip-sync', 'talking head'],
  'text-to-speech': ['tts', 'speech', 'voice', 'speak'],
  'voice-changing': ['voice changer', 'voice conversion'],
  transcription: ['stt', 'speech to text', 'speech-to-text', 'asr', 'transcribe'],
  'music-generation': ['music', 'song'],
  'sound-effects': ['sfx', 'sound effect', 'sound effects', 'sound'],
  'audio-translation': ['dubbing', 'translate audio'],
  'text-generation': ['llm', 'chat', 'text generation', 'completion'],
  'multimodal-llm': ['multimodal', 'vision llm'],
};
