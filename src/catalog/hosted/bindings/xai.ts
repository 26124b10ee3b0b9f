import type { EngineBinding } from '../../types.js';

/** The hosted xAI sub-models (hosted-catalog.json `grok-imagine-image`) bound to the xAI adapter (src/engines/remote/xai.ts). */
export const bindings: Record<string, EngineBinding> = {
  'grok-imagine-image-text': { engine: 'xai', options: { operation: 'generate', model: 'grok-imagine-image' } },
  'grok-imagine-image-edit': { engine: 'xai', options: { operation: 'edit', model: 'grok-imagine-image' } },
};
