import type { EngineBinding } from '../../types.js';

/**
 * The hosted Deepgram sub-models (hosted-catalog.json, providerType `deepgram`, both on `nova-3`) bound to
 * the Deepgram adapter (src/engines/remote/deepgram.ts). Both answer under `result`, the hosted output key.
 */
export const bindings: Record<string, EngineBinding> = {
  'ai-transcription': { engine: 'deepgram', options: { operation: 'transcribe', model: 'nova-3', outputKey: 'result' } },
  'podcast-summarizer': { engine: 'deepgram', options: { operation: 'summarize', model: 'nova-3', outputKey: 'result' } },
};
