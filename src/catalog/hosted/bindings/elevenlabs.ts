import type { EngineBinding } from '../../types.js';

/**
 * The hosted ElevenLabs sub-models (hosted-catalog.json, providerType `elevenlabs`) bound to the ElevenLabs
 * adapter (src/engines/remote/elevenlabs.ts). `model` is ElevenLabs' own `model_id`; the speech-to-speech
 * model comes from the run's `model_id` input, this one being its fallback.
 */
export const bindings: Record<string, EngineBinding> = {
  'elevenlabs-v3-tts': { engine: 'elevenlabs', options: { operation: 'tts', model: 'eleven_v3' } },
  'elevenlabs-multilingual-v2-tts': { engine: 'elevenlabs', options: { operation: 'tts', model: 'eleven_multilingual_v2' } },
  'elevenlabs-sfx': { engine: 'elevenlabs', options: { operation: 'sfx' } },
  'elevenlabs-music': { engine: 'elevenlabs', options: { operation: 'music', model: 'music_v1' } },
  'elevenlabs-isolation': { engine: 'elevenlabs', options: { operation: 'isolation' } },
  'elevenlabs-sts': { engine: 'elevenlabs', options: { operation: 'sts', model: 'eleven_english_sts_v2' } },
  'elevenlabs-dubbing': { engine: 'elevenlabs', options: { operation: 'dubbing' } },
};
