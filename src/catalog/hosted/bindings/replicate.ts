import type { EngineBinding } from '../../types.js';

/** Hosted models served by Replicate (engines/remote/replicate.ts), keyed by hosted sub-model id. */
export const bindings: Record<string, EngineBinding> = {
  'background-remover': { engine: 'replicate', options: { model: '851-labs/background-remover', inputMap: { image_url: 'image' } } },
};
