import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { isConnectionError, retryOnConnectionLoss } from '../db/pool.js';
import { EngineInputError, type EngineOutputs } from '../engines/types.js';
import { endedByStop, errorCodeOf, RunFailure, type RunErrorCode } from './failure.js';
import { releaseSlot } from './remoteLane.js';

/** Why this process stopped a task's engine; the runner decides what follows from it. */
export const ABORT = {
  canceled: 'canceled',
  leaseLost: 'lease lost',
  shuttingDown: 'worker shutting down',
  timeout: 'timeout',
} as const;

/**
 * One leased piece of engine work (a standalone run or a workflow node), described by its owner: how to
 * keep the lease, run the engine, and settle or hand it back. Settle callbacks are guarded in SQL by
 * state and lease owner and return false when the task was not theirs to end any more.
 */
export interface LeasedTask {
  /** Key a cancel NOTIFY names: the run id, or `runId:nodeId`. */
  key: string;
  logContext: Record<string, unknown>;
  /** Scratch folder name under the runner's tmp root (unique per attempt). */
  scratchName: string;
  /** Epoch ms of the model's time-out and of the run's Cancel-After (if any). */
  timeoutAt: number;
  cancelAfter: number | null;
  /** Message of a failure by the model's own time-out. */
  timeoutMessage: string;
  /** Extends the lease; false when it was lost (canceled, or taken over after a stall). */
  heartbeat(): Promise<boolean>;
  execute(signal: AbortSignal, deadline: number, tmpDir: string): Promise<EngineOutputs>;
  settleSuccess(outputs: EngineOutputs): Promise<boolean>;
  settleFailure(message: string, code: RunErrorCode | null): Promise<boolean>;
  /** Gives the task back to the queue without counting the attempt (a stopping worker). */
  handBack(): Promise<void>;
}

/**
 * The one leased-task loop, used by standalone runs and workflow nodes alike: heartbeat while the engine
 * works, abort at the deadline (a Cancel-After deadline cancels; the model's time-out fails), on cancel
 * or lost lease end without settling (someone else settles), on shutdown hand the task back, otherwise
 * settle exactly once, retrying the settle across lost database connections.
 */
export class LeasedTaskRunner {
  private readonly active = new Map<string, { ctl: AbortController; task: LeasedTask }>();
  /** False once this worker stops: work found ready after a task (a workflow's next node) is left to the queue. */
  accepting = true;

  constructor(private readonly log: Logger, private readonly opts: { leaseSeconds: number; tmpRoot: string }) {
    fs.mkdirSync(opts.tmpRoot, { recursive: true });
  }

  /** Aborts a task this process runs (cancel NOTIFY); unknown keys are ignored. */
  abort(key: string, reason: string = ABORT.canceled): void {
    this.active.get(key)?.ctl.abort(new Error(reason));
  }

  abortAll(reason: string): void {
    for (const { ctl } of this.active.values()) ctl.abort(new Error(reason));
  }

  get size(): number {
    return this.active.size;
  }

  /** Tasks still here after a stop's abort (engines that ignored it): hand them back all the same. */
  async handBackRemaining(): Promise<void> {
    for (const { task } of [...this.active.values()]) await task.handBack().catch(() => {});
  }

  /** Runs the task to its end; true when this call settled it (the caller may then advance a workflow). */
  async run(task: LeasedTask): Promise<boolean> {
    const ctl = new AbortController();
    this.active.set(task.key, { ctl, task });
    const heartbeat = setInterval(() => {
      task.heartbeat().then((kept) => { if (!kept) ctl.abort(new Error(ABORT.leaseLost)); }, () => {});
    }, Math.max(250, (this.opts.leaseSeconds * 1000) / 3));
    const deadline = Math.min(task.timeoutAt, task.cancelAfter ?? Number.POSITIVE_INFINITY);
    // At a Cancel-After deadline the run is canceled (and refunded) by the sweeper; the model's own time-out fails it.
    const byCancelAfter = task.cancelAfter !== null && deadline === task.cancelAfter;
    const timer = setTimeout(() => ctl.abort(new Error(byCancelAfter ? ABORT.canceled : ABORT.timeout)), Math.max(0, deadline - Date.now()));
    // Made by the engine call that needs it (engineRunner.ts runLocal): a remote call writes no scratch files,
    // and a directory made and removed per remote run was 2–3 % of a busy worker's CPU.
    const tmpDir = path.join(this.opts.tmpRoot, task.scratchName);
    try {
      let outputs: EngineOutputs;
      try {
        try {
          outputs = await task.execute(ctl.signal, deadline, tmpDir);
        } finally {
          // The engine's work is over: settling only waits on the database, so the consumer loop goes back to
          // taking jobs now instead of after the settle's round trips (issue 31: with two loops, a local run's
          // settle was half of each loop's time per job, and runs queued behind it). The run keeps its lease
          // and heartbeat until settled; the CPU slots (engineRunner.ts) still bound engine work.
          releaseSlot();
        }
        if (ctl.signal.aborted) throw ctl.signal.reason;
      } catch (err) {
        const reason = ctl.signal.aborted ? (ctl.signal.reason as Error)?.message : undefined;
        // Canceled (the canceler settles) or lease lost (another worker continues): nothing to settle here.
        if (reason === ABORT.canceled || reason === ABORT.leaseLost) return false;
        // Stopping, the engine's process ended or its pool closed under the task: that is part of the stop,
        // not the run's failure, so the task goes back to the queue like an aborted one. (Only our own
        // execution layer's failures: a provider's error is the run's, and is never retried blindly.)
        if (reason === ABORT.shuttingDown || (!this.accepting && endedByStop(err))) {
          await retryOnConnectionLoss(() => task.handBack());
          this.log.info(task.logContext, `${'nodeId' in task.logContext ? 'workflow node' : 'run'} handed back to the queue`);
          return false;
        }
        const failure = reason === ABORT.timeout ? new RunFailure('ENGINE_TIMEOUT', task.timeoutMessage) : err;
        const message = failure instanceof Error ? failure.message : String(failure);
        if (!(err instanceof EngineInputError)) this.log.warn({ ...task.logContext, err }, 'engine work failed');
        return await retryOnConnectionLoss(() => task.settleFailure(message.slice(0, 2000), errorCodeOf(failure)));
      }
      // The engine succeeded: a lost database connection while storing must not turn that into a failure.
      // Settling is guarded by state and lease, so it is retried; if the database stays away the lease
      // lapses and another worker runs it again.
      try {
        return await retryOnConnectionLoss(() => task.settleSuccess(outputs));
      } catch (err) {
        if (isConnectionError(err)) throw err;
        // The outputs could not be stored (e.g. refused by the file store): the task fails with the reason.
        this.log.warn({ ...task.logContext, err }, 'storing the outputs failed');
        return await retryOnConnectionLoss(() => task.settleFailure((err instanceof Error ? err.message : String(err)).slice(0, 2000), errorCodeOf(err)));
      }
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timer);
      this.active.delete(task.key);
      fs.rm(tmpDir, { recursive: true, force: true }, () => {});
    }
  }
}
