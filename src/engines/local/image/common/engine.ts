import type { Availability, Engine, EngineContext, EngineOutputs, ExecuteRequest } from '../../../types.js';
import { EngineError } from '../../../types.js';
import { missingPackages } from './packages.js';

export interface LocalEngineSpec {
  id: string;
  requirements: string[];
  /** npm packages that must resolve; checked without loading them. */
  packages?: string[];
  /** Extra cheap check (a binary on PATH, a data file). */
  check?: () => Promise<Availability> | Availability;
  run(req: ExecuteRequest, ctx: EngineContext): Promise<EngineOutputs>;
}

/** Wraps the boilerplate every local engine shares: cached availability and abort checks around run. */
export function localEngine(spec: LocalEngineSpec): Engine {
  let availability: Promise<Availability> | undefined;
  return {
    id: spec.id,
    requirements: spec.requirements,
    availability() {
      availability ??= (async () => {
        const missing = missingPackages(spec.packages ?? []);
        if (missing) return { available: false, reason: missing };
        return spec.check ? spec.check() : { available: true };
      })();
      return availability;
    },
    async execute(req, ctx) {
      ctx.signal.throwIfAborted();
      const out = await spec.run(req, ctx);
      ctx.signal.throwIfAborted();
      ctx.progress(1, 'done');
      return out;
    },
  };
}

/** Rejects a thread task's abort as the engine error the worker expects, keeping other errors as they are. */
export function rethrowAborted(ctx: EngineContext, e: unknown): never {
  if (ctx.signal.aborted) throw new EngineError('aborted');
  throw e;
}
