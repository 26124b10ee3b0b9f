import type { EngineBinding } from '../../types.js';

/**
 * The hosted Google sub-models (hosted-catalog.json, providerType `google`) that the Gemini API adapter
 * (src/engines/remote/google.ts) serves through generateContent. The Gemini Omni Flash video sub-models
 * (gemini-omni-flash-*, gemini-omni-flash-edit-video) are not bound: Google offers them through its
 * Interactions API only, which this adapter does not speak yet.
 */
export const bindings: Record<string, EngineBinding> = {
  'gemini-pro-tts': { engine: 'google', options: { operation: 'speech', model: 'gemini-2.5-pro-preview-tts' } },
  'lyria-3.5': { engine: 'google', options: { operation: 'music', model: 'lyria-3.5' } },
};
