import type { Availability, Engine } from './types.js';
import { EngineError } from './types.js';
import type { BindingAvailability } from './remote/servedModels.js';

/** The engine id of hosted-catalog models whose provider has no adapter in this build. */
export const NO_ADAPTER_ENGINE_ID = 'no-adapter';

/**
 * Stands in for a provider this build has no adapter for (a hosted-catalog model on a provider nobody has
 * written an adapter for yet): each such binding names its provider and is unavailable with the reason
 * "no adapter for provider X", so the catalog lists the model and a run of it is refused before any charge.
 */
export function createNoAdapterEngine(): Engine & BindingAvailability {
  const reason = (options: Record<string, unknown>): Availability => ({
    available: false,
    reason: `no adapter for provider ${typeof options.provider === 'string' ? options.provider : 'unknown'} in this build`,
  });
  return {
    id: NO_ADAPTER_ENGINE_ID,
    requirements: ['an adapter for the model’s provider'],
    // Answered per binding (bindingAvailability): the engine itself has nothing to check.
    availability: async () => ({ available: true }),
    bindingAvailability: reason,
    execute: async (req) => {
      throw new EngineError(`${req.nodeType} cannot run: ${reason(req.options).reason}`);
    },
  };
}
