import { EngineError } from '../types.js';

/** What to throw when a run's signal fired: its reason when that is an Error, else a plain cancel error. */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error && r.name !== 'AbortError') return r;
  return new EngineError('canceled');
}

/** Waits, but wakes (and throws) when the signal fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(t);
      reject(abortReason(signal));
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RunScope {
  /** Fires on the run's cancel or at its deadline. */
  signal: AbortSignal;
  deadline: number;
  timedOut(): boolean;
  /** Canceled, or past the deadline (even if the timer has not fired yet). */
  stopped(): boolean;
  /** The error to throw once `signal` fired: the time-out in words, or the cancel reason. */
  stopError(what: string): Error;
  dispose(): void;
}

/** One signal for "stop now", whether the run was canceled or its deadline passed. */
export function runScope(ctx: { signal: AbortSignal; deadline: number }): RunScope {
  const ctl = new AbortController();
  let timedOut = false;
  const started = Date.now();
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new EngineError('deadline passed', true));
  }, Math.max(0, ctx.deadline - Date.now()));
  const onAbort = () => ctl.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctl.signal,
    deadline: ctx.deadline,
    timedOut: () => timedOut || Date.now() >= ctx.deadline,
    stopped: () => ctl.signal.aborted || Date.now() >= ctx.deadline,
    stopError: (what) =>
      timedOut || (!ctx.signal.aborted && Date.now() >= ctx.deadline)
        ? new EngineError(`${what} did not finish within the run's time limit (${Math.round((Date.now() - started) / 100) / 10} s)`, true)
        : abortReason(ctx.signal),
    dispose: () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    },
  };
}
