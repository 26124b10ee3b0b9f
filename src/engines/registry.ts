import type { Availability, Engine } from './types.js';
import { hasBindingAvailability } from './remote/servedModels.js';

/**
 * The engines this process has, by id, with their availability checked once at start (availability
 * checks are cheap: a binary on PATH, a configured key). Nothing here loads a model.
 */
export class EngineRegistry {
  private readonly engines = new Map<string, Engine>();
  private readonly status = new Map<string, Availability>();

  constructor(engines: Engine[]) {
    for (const e of engines) {
      if (this.engines.has(e.id)) throw new Error(`duplicate engine id ${e.id}`);
      this.engines.set(e.id, e);
    }
  }

  async init(): Promise<void> {
    await Promise.all([...this.engines.values()].map(async (e) => {
      try {
        this.status.set(e.id, await e.availability());
      } catch (err) {
        this.status.set(e.id, { available: false, reason: `availability check failed: ${(err as Error).message}` });
      }
    }));
  }

  get(id: string): Engine | undefined {
    return this.engines.get(id);
  }

  /** An engine's availability and, when the engine can say (a remote server's model list), the binding's. */
  availability(id: string, options?: Record<string, unknown>): Availability {
    const engine = this.engines.get(id);
    if (!engine) return { available: false, reason: `engine "${id}" is not part of this build` };
    const status = this.status.get(id) ?? { available: false, reason: 'availability not checked yet' };
    if (!status.available || !options || !hasBindingAvailability(engine)) return status;
    return engine.bindingAvailability(options);
  }

  ids(): string[] {
    return [...this.engines.keys()];
  }
}
