import type { EngineBinding } from '../../types.js';
import { bindings as fal } from './fal.js';
import { bindings as openai } from './openai.js';
import { bindings as openrouter } from './openrouter.js';
import { bindings as replicate } from './replicate.js';

/**
 * Every hosted sub-model's engine binding, keyed by hosted sub-model id; one file per provider. A sub-model
 * with none is still listed, unavailable ("no adapter for provider X", engines/noAdapter.ts).
 */
export const hostedBindings: Record<string, EngineBinding> = {
  ...openrouter,
  ...fal,
  ...openai,
  ...replicate,
};
