import { AtelierError } from './errors.js';
import { sleep } from './retry.js';
import { TERMINAL_STATUSES, type RunStatus } from './types-runs.js';

export interface WaitOptions<R> {
  /** Give up after this long (default: no limit) with AtelierError code WAIT_TIMEOUT; the run keeps going. */
  timeoutMs?: number;
  /** Called with every polled record (progress, status changes). */
  onProgress?: (run: R) => void;
}

/**
 * A started run: its id, and `wait()` that polls until the run ends. Polling starts at 100 ms (short
 * local models finish in tens of ms) and grows by half each time up to 2 s, so long runs cost few requests.
 */
export class RunHandle<R extends { status: RunStatus }> {
  constructor(
    readonly runId: string,
    readonly status: RunStatus,
    readonly estimatedCredits: number,
    private readonly fetchRun: () => Promise<R>,
    private readonly cancelRun: () => Promise<R>,
  ) {}

  get(): Promise<R> {
    return this.fetchRun();
  }

  cancel(): Promise<R> {
    return this.cancelRun();
  }

  /** Resolves with the final record whatever the outcome; check `status` for COMPLETED / FAILED / CANCELED. */
  async wait(opts: WaitOptions<R> = {}): Promise<R> {
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    let delay = 100;
    for (;;) {
      const run = await this.fetchRun();
      opts.onProgress?.(run);
      if (TERMINAL_STATUSES.includes(run.status)) return run;
      const left = deadline - Date.now();
      if (left <= 0) throw new AtelierError({ status: 0, code: 'WAIT_TIMEOUT', message: `run ${this.runId} still ${run.status} after ${opts.timeoutMs} ms` });
      await sleep(Math.min(delay, left));
      delay = Math.min(2000, Math.round(delay * 1.5));
    }
  }
}
