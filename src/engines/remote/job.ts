import type { Availability, Engine, EngineContext } from '../types.js';
import { EngineError } from '../types.js';
import { sleep, type RunScope } from './signals.js';
import type { ResolvedCommon } from './settings.js';

/** One step of polling a provider's job. */
export type PollResult<T> = { done: true; value: T } | { done: false; progress?: number; message?: string };

export interface RemoteJob<T> {
  /** For messages: "fal job 8f3c…". */
  label: string;
  poll(signal: AbortSignal): Promise<PollResult<T>>;
  /** Asks the provider to stop the job; given its own short time limit because the run's signal has fired. */
  cancel(signal: AbortSignal): Promise<void>;
}

/**
 * Polls a submitted job until it ends, with a growing interval. When the run is canceled or its deadline
 * passes, the provider is told to cancel (so nobody keeps paying for work no one will collect) and the
 * run fails with the reason.
 */
export async function waitForJob<T>(job: RemoteJob<T>, scope: RunScope, ctx: EngineContext, common: ResolvedCommon): Promise<T> {
  let interval = common.pollIntervalMs;
  try {
    for (;;) {
      const r = await job.poll(scope.signal);
      if (r.done) return r.value;
      if (r.progress !== undefined) ctx.progress(Math.max(0, Math.min(1, r.progress)), r.message);
      await sleep(interval, scope.signal);
      interval = Math.min(common.maxPollIntervalMs, Math.ceil(interval * 1.5));
    }
  } catch (err) {
    if (!scope.stopped()) throw err;
    await cancelQuietly(job, ctx, common);
    throw scope.stopError(job.label);
  }
}

export async function cancelQuietly(job: { label: string; cancel(signal: AbortSignal): Promise<void> }, ctx: EngineContext, common: ResolvedCommon): Promise<void> {
  try {
    await job.cancel(AbortSignal.timeout(common.cancelTimeoutMs));
    ctx.log.info(`canceled ${job.label}`);
  } catch (err) {
    ctx.log.warn(`could not cancel ${job.label}`, { error: (err as Error).message });
  }
}

/** A percentage from the last progress line of a provider's log ("45%|████", "step 9/20"). */
export function progressFromLogs(lines: string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const pct = /(\d{1,3})%\|/.exec(line) ?? /(\d{1,3}(?:\.\d+)?)\s?%/.exec(line);
    if (pct) return Math.min(100, Number(pct[1])) / 100;
    const steps = /(\d+)\s*\/\s*(\d+)/.exec(line);
    if (steps && Number(steps[2]) > 0) return Math.min(1, Number(steps[1]) / Number(steps[2]));
  }
  return undefined;
}

/**
 * The adapter an operator has not configured: listed, unavailable with the reason, and refusing to
 * run (the run service checks availability first; this is the last guard).
 */
export function unconfiguredEngine(id: string, requirements: string[], reason: string): Engine {
  const availability: Availability = { available: false, reason };
  return {
    id,
    requirements,
    availability: async () => availability,
    execute: async () => {
      throw new EngineError(`engine ${id} is not configured: ${reason}`);
    },
  };
}
