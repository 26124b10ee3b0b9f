import type { Availability, Engine } from './types.js';

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

  availability(id: string): Availability {
    if (!this.engines.has(id)) return { available: false, reason: `engine "${id}" is not part of this build` };
    return this.status.get(id) ?? { available: false, reason: 'availability not checked yet' };
  }

  ids(): string[] {
    return [...this.engines.keys()];
  }
}
