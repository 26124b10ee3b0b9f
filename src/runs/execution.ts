import type { Db } from '../db/pool.js';
import type { EngineOutputs } from '../engines/types.js';
import type { EngineRunner } from '../execution/engineRunner.js';
import type { LeasedTaskRunner } from '../execution/leasedTask.js';
import type { RunErrorCode } from '../execution/failure.js';
import type { RouteReport } from '../execution/routing.js';
import type { FileService } from '../files/service.js';
import { recordEvent } from '../events/outbox.js';
import { OutputDeltas } from '../events/outputDeltas.js';
import type { JobQueue } from '../queue/queue.js';
import { deferSeconds } from '../queue/fairness.js';
import type { RunObserver } from './observer.js';
import { finishModelRun, type FinishInput } from './settle.js';
import { FinalProgress } from './finalProgress.js';
import { renderOutput } from './view.js';
import * as q from './queries.js';
import { annotate, inSpan } from '../tracing/tracing.js';
import { HeartbeatBatcher } from './heartbeats.js';
import { countOf, rowOf } from '../db/typed.js';

/** How many times a run may be picked up again after its worker died before it is failed as poison. */
const MAX_ATTEMPTS = 3;

/**
 * Executes standalone runs on the shared leased-task runner: claims the run with a lease, and supplies
 * the run's own heartbeat, settle and hand-back. A worker that dies leaves a lapsed lease the sweeper
 * hands to another worker; a worker that outlives its lease finds its settle refused.
 */
export class ModelRunExecutor {
  private readonly heartbeats: HeartbeatBatcher;

  constructor(
    private readonly db: Db,
    private readonly runner: EngineRunner,
    private readonly files: FileService,
    private readonly queue: JobQueue,
    private readonly tasks: LeasedTaskRunner,
    /** The lease owner written on claimed runs (one per worker process). */
    private readonly workerId: string,
    private readonly opts: { leaseSeconds: number; metrics?: RunObserver; /** Per-account concurrency limit (ATELIER_ACCOUNT_CONCURRENCY), 0 for none. */ accountConcurrency?: number },
  ) {
    this.heartbeats = new HeartbeatBatcher(db, workerId, opts.leaseSeconds);
  }

  /** `jobId`: the run's job when this process created the run and takes it at once (dispatcher.ts takeOwn); the claim drops it. */
  async execute(runId: string, jobId?: string): Promise<void> {
    // The claim is the transaction's first statement, so it goes with BEGIN in one round trip (db/pool.ts),
    // and checks the account's fair share itself (queue/fairness.ts): a run over it is not taken and its job
    // goes back for a moment.
    const limit = this.opts.accountConcurrency ?? 0;
    const claimed = (await this.db.tx(async (tx) => {
      const answer = (await tx.query(q.CLAIM_RUN, [runId, this.workerId, this.opts.leaseSeconds, limit, jobId ?? null])).rows[0] as q.ClaimAnswer | undefined;
      if (!answer) return undefined;
      if (answer.id === null) {
        if (answer.status_before === 'QUEUED' && limit > 0 && answer.account_running >= limit) {
          const wait = deferSeconds(answer.account_running, limit);
          await this.queue.enqueueRun(tx, { runId, kind: 'node' }, 120 + wait, { stamped: true, startAfterSeconds: wait });
        }
        return undefined;
      }
      const run = answer as q.ClaimedRunRow;
      if (run.previous_status === 'QUEUED') {
        // With the COMMIT, in its round trip: the claim is two round trips, BEGIN + claim and event + COMMIT.
        await recordEvent(tx, { accountId: run.account_id, runId, workflowId: run.node_type, type: 'run.started', data: { status: 'RUNNING', totalNodes: 1 }, webhook: run.webhook }, { atCommit: true });
      }
      return run;
    }));
    if (!claimed) return; // finished, canceled, or held by a live worker
    if (claimed.kind !== 'node') return;
    if (claimed.attempts > MAX_ATTEMPTS) {
      await this.settleFailure(runId, `the run stopped its worker ${claimed.attempts - 1} times and was given up`, null);
      return;
    }
    const timeoutAt = Date.now() + claimed.timeout_seconds * 1000;
    // A routed model's run learns here which route served it, or why each failed (execution/routing.ts).
    let route: RouteReport | undefined;
    const progress = new FinalProgress((f, message) => void this.db.query(q.PROGRESS, [runId, this.workerId, f, message]).catch(() => {}));
    await inSpan('atelier.run.execute', { 'atelier.run.id': runId, 'atelier.model': claimed.node_type, 'atelier.sub_model': claimed.sub_model_id, 'atelier.microcredits.reserved': claimed.reserved_microcredits }, () => this.tasks.run({
      key: runId,
      logContext: { runId },
      scratchName: `${runId}-${claimed.attempts}`,
      timeoutAt,
      cancelAfter: claimed.cancel_after ? claimed.cancel_after.getTime() : null,
      timeoutMessage: `timed out after ${Math.round((timeoutAt - claimed.started_at.getTime()) / 1000)} s`,
      heartbeat: () => this.heartbeats.beat(runId),
      execute: (signal, deadline, tmpDir) => this.runner.run({
        accountId: claimed.account_id, nodeType: claimed.node_type, subModelId: claimed.sub_model_id, input: claimed.input, signal, deadline, tmpDir,
        logContext: { runId },
        onProgress: (f, message) => progress.report(f, message ?? null),
        deltas: new OutputDeltas(this.db, runId),
        onRoute: (r) => (route = r),
      }),
      settleSuccess: (outputs) => this.settleSuccess(claimed, outputs, route, progress.take()),
      settleFailure: (message, code) => this.settleFailure(runId, message, code, route, progress.take()),
      handBack: () => this.handBack(runId),
    }), { parent: claimed.trace_parent });
  }

  /** A run's kind ('node' or 'workflow'); undefined for an unknown run. */
  async kindOf(runId: string): Promise<string | undefined> {
    return (await rowOf<{ kind: string }>(this.db, q.RUN_KIND, [runId]))?.kind;
  }

  /** Gives a run this worker holds back to the queue: not a crash, so the attempt does not count. */
  private async handBack(runId: string): Promise<void> {
    await this.db.tx(async (tx) => {
      if (await countOf(tx, q.HAND_BACK_RUN, [runId, this.workerId])) await this.queue.enqueueRun(tx, { runId, kind: 'node' }, 120);
    });
  }

  private async settleSuccess(run: q.ModelRunRow, outputs: EngineOutputs, route?: RouteReport, progress?: FinishInput['progress']): Promise<boolean> {
    const done = await this.db.tx(async (tx) => {
      const stored = await this.runner.store(tx, run.account_id, run.id, outputs, { nodeType: run.node_type, subModelId: run.sub_model_id });
      const eventOutputs = (await renderOutput(this.files, stored, tx)).output;
      return finishModelRun(tx, { runId: run.id, status: 'COMPLETED', output: stored, leaseOwner: this.workerId, from: ['RUNNING'], eventOutputs, route, progress });
    });
    this.observe(done);
    return done !== undefined;
  }

  private async settleFailure(runId: string, message: string, errorCode: RunErrorCode | null, route?: RouteReport, progress?: FinishInput['progress']): Promise<boolean> {
    const done = await this.db.tx((tx) => finishModelRun(tx, { runId, status: 'FAILED', error: message.slice(0, 2000), errorCode, leaseOwner: this.workerId, from: ['RUNNING'], route, progress }));
    this.observe(done);
    return done !== undefined;
  }

  private observe(run: q.ModelRunRow | undefined): void {
    if (run) annotate({ 'atelier.run.status': run.status, 'atelier.microcredits.charged': run.charged_microcredits }, run.status === 'FAILED' ? run.error : null);
    if (run) this.opts.metrics?.observeRun('node', run.node_type, run.status, run.started_at, run.finished_at);
  }
}
