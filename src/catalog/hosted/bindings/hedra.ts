import type { EngineBinding } from '../../types.js';

/** The hosted `hedra-lipsync` bound to the Hedra adapter (src/engines/remote/hedra.ts) on Hedra Character-3 (its `ai_model_id`). */
export const bindings: Record<string, EngineBinding> = {
  'hedra-lipsync': { engine: 'hedra', options: { model: 'd1dd37a3-e39a-4854-a298-6510289f9cf2' } },
};
