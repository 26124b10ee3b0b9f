import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { isConnectionError, retryOnConnectionLoss, type Db } from '../db/pool.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';
import { EngineInputError, type EngineOutputs } from '../engines/types.js';
import type { EngineRunner } from './engineRunner.js';
import type { FileService } from '../files/service.js';
import { recordEvent } from '../events/outbox.js';
import type { JobQueue, RunJob } from '../queue/queue.js';
import type { WorkflowExecutor } from '../workflows/executor.js';
import type { Metrics } from '../ops/metrics.js';
import { newId } from '../ids.js';
import { finishNodeRun } from './settle.js';
import { renderOutput } from './view.js';
import * as q from './queries.js';

export interface WorkerOptions {
  concurrency: number;
  leaseSeconds: number;
  tmpRoot: string;
  metrics?: Metrics;
}

/** How many times a run may be picked up again after its worker died before it is failed as poison. */
const MAX_ATTEMPTS = 3;

/**
 * Consumes the run queue: claims each run with a lease, heartbeats while the engine works, stores the
 * artifacts and settles the run exactly once. A worker that dies leaves a lapsed lease that the sweeper
 * hands to another worker; a worker that outlives its lease finds its settle refused and discards its result.
 */
export class RunWorker {
  readonly id = newId('wrk');
  private readonly active = new Map<string, AbortController>();
  /** Every job this process is handling, so a stop can wait for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly runner: EngineRunner,
    private readonly files: FileService,
    private readonly queue: JobQueue,
    private readonly notifier: Notifier,
    private readonly log: Logger,
    private readonly opts: WorkerOptions,
    private readonly workflows: WorkflowExecutor,
  ) {}

  async start(): Promise<void> {
    fs.mkdirSync(this.opts.tmpRoot, { recursive: true });
    this.unsubscribe = await this.notifier.subscribe(CHANNELS.cancel, (key) => {
      this.active.get(key)?.abort(new Error('canceled'));
      this.workflows.abort(key);
    });
    await this.queue.work(this.opts.concurrency, (job) => this.track(this.dispatch(job).catch((err) => {
      if (isConnectionError(err)) {
        // The database went away before the run was claimed: send the job again (claims are guarded, so
        // a duplicate is harmless) rather than wait for the sweeper's backstop.
        this.log.warn({ err, job }, 'database connection lost while picking up a job; re-queuing it');
        this.requeueLater(job);
        return;
      }
      // The run's state is in PostgreSQL; the sweeper re-queues whatever this left unfinished.
      this.log.error({ err, job }, 'run job failed');
    })));
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private requeueLater(job: RunJob, delayMs = 500): void {
    setTimeout(() => {
      retryOnConnectionLoss(() => this.db.tx((tx) => this.queue.enqueueRun(tx, job, 120)))
        .catch((err) => this.log.warn({ err, job }, 'could not re-queue a job; the sweeper will'));
    }, delayMs).unref();
  }

  /** A job is a standalone run, a workflow's advance step, or one workflow node. */
  private async dispatch(job: RunJob): Promise<void> {
    // A job fetched while stopping belongs to another worker: put it back instead of dropping it.
    if (this.stopping) return this.db.tx((tx) => this.queue.enqueueRun(tx, job, 120));
    if (job.nodeId) return this.workflows.executeNode(job.runId, job.nodeId);
    // Jobs carry their kind; only a job queued without one (an older release) costs a lookup.
    const kind = job.kind ?? (await this.db.query(`SELECT kind FROM runs WHERE id = $1`, [job.runId])).rows[0]?.kind;
    if (kind === 'workflow') return this.workflows.advance(job.runId);
    if (kind === 'node') return this.execute(job.runId);
  }

  /**
   * Stops taking jobs, lets the running ones finish for up to `graceMs`, then aborts the rest and hands
   * them back (lease released and job re-queued, so another worker starts them at once).
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopping = true;
    await this.queue.stopWorking();
    if (!(await settledWithin([...this.inFlight], graceMs))) {
      for (const ctl of this.active.values()) ctl.abort(new Error('worker shutting down'));
      this.workflows.abortAll();
      // Engines stop on abort; one that does not is left behind (its settle will be refused).
      await settledWithin([...this.inFlight], 5000);
      for (const runId of this.active.keys()) await this.handBack(runId).catch(() => {});
      await this.workflows.handBackAll();
    }
    this.unsubscribe?.();
  }

  /** Gives a run this worker holds back to the queue: not a crash, so the attempt does not count. */
  private async handBack(runId: string): Promise<void> {
    await retryOnConnectionLoss(() => this.db.tx(async (tx) => {
      const r = await tx.query(`UPDATE runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
        WHERE id = $1 AND lease_owner = $2 AND status = 'RUNNING' RETURNING id`, [runId, this.id]);
      if (r.rowCount) await this.queue.enqueueRun(tx, { runId, kind: 'node' }, 120);
    }));
    this.log.info({ runId }, 'run handed back to the queue');
  }

  async execute(runId: string): Promise<void> {
    const claimed = (await this.db.tx(async (tx) => {
      const run = (await tx.query(q.CLAIM_RUN, [runId, this.id, this.opts.leaseSeconds])).rows[0];
      if (run && run.previous_status === 'QUEUED') {
        await recordEvent(tx, { accountId: run.account_id, runId, workflowId: run.node_type, type: 'run.started', data: { status: 'RUNNING', totalNodes: 1 }, webhook: run.webhook });
      }
      return run;
    })) as any;
    if (!claimed) return; // finished, canceled, or held by a live worker
    if (claimed.kind !== 'node') return;
    if (claimed.attempts > MAX_ATTEMPTS) {
      await this.settleFailure(runId, `the run stopped its worker ${claimed.attempts - 1} times and was given up`);
      return;
    }

    const ctl = new AbortController();
    this.active.set(runId, ctl);
    const heartbeat = setInterval(() => {
      this.db.query(q.HEARTBEAT, [runId, this.id, this.opts.leaseSeconds]).then(
        (r) => { if (r.rowCount === 0) ctl.abort(new Error('lease lost')); },
        () => {},
      );
    }, Math.max(250, (this.opts.leaseSeconds * 1000) / 3));
    const tmpDir = path.join(this.opts.tmpRoot, `${runId}-${claimed.attempts}`);
    fs.mkdirSync(tmpDir, { recursive: true });
    const deadline = Math.min(
      Date.now() + claimed.timeout_seconds * 1000,
      claimed.cancel_after ? claimed.cancel_after.getTime() : Number.POSITIVE_INFINITY,
    );
    // At a Cancel-After deadline the run is canceled (and refunded) by the sweeper; the model's own time-out fails it.
    const byCancelAfter = claimed.cancel_after !== null && deadline === claimed.cancel_after.getTime();
    const timer = setTimeout(() => ctl.abort(new Error(byCancelAfter ? 'canceled' : 'timeout')), Math.max(0, deadline - Date.now()));
    try {
      let outputs: EngineOutputs;
      try {
        outputs = await this.runEngine(claimed, ctl.signal, deadline, tmpDir);
        if (ctl.signal.aborted) throw ctl.signal.reason;
      } catch (err) {
        const reason = ctl.signal.aborted ? (ctl.signal.reason as Error)?.message : undefined;
        // Canceled (the canceler settled it) or lease lost (another worker continues): nothing to settle here.
        if (reason === 'canceled' || reason === 'lease lost') return;
        if (reason === 'worker shutting down') return await this.handBack(runId);
        const message = reason === 'timeout'
          ? `timed out after ${Math.round((deadline - claimed.started_at.getTime()) / 1000)} s`
          : err instanceof Error ? err.message : String(err);
        if (!(err instanceof EngineInputError)) this.log.warn({ runId, err }, 'run failed');
        await retryOnConnectionLoss(() => this.settleFailure(runId, message));
        return;
      }
      // The engine succeeded: a lost database connection while storing must not turn that into a failure.
      // Settling is guarded by state and lease, so it is retried; if the database stays away the lease
      // lapses and another worker runs it again.
      try {
        await retryOnConnectionLoss(() => this.settleSuccess(claimed, outputs));
      } catch (err) {
        if (isConnectionError(err)) throw err;
        // The outputs could not be stored (e.g. refused by the file store): the run fails with the reason.
        this.log.warn({ runId, err }, 'storing the run outputs failed');
        await retryOnConnectionLoss(() => this.settleFailure(runId, err instanceof Error ? err.message : String(err)));
      }
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timer);
      this.active.delete(runId);
      fs.rm(tmpDir, { recursive: true, force: true }, () => {});
    }
  }

  private async runEngine(run: any, signal: AbortSignal, deadline: number, tmpDir: string): Promise<EngineOutputs> {
    return this.runner.run({
      accountId: run.account_id, nodeType: run.node_type, subModelId: run.sub_model_id, input: run.input, signal, deadline, tmpDir,
      logContext: { runId: run.id },
      onProgress: (f, message) => void this.db.query(q.PROGRESS, [run.id, this.id, f, message ?? null]).catch(() => {}),
    });
  }

  private async settleSuccess(run: any, outputs: EngineOutputs): Promise<void> {
    const done = await this.db.tx(async (tx) => {
      const stored = await this.runner.store(tx, run.account_id, run.id, outputs);
      const eventOutputs = (await renderOutput(this.files, stored, tx)).output;
      return finishNodeRun(tx, { runId: run.id, status: 'COMPLETED', output: stored, leaseOwner: this.id, from: ['RUNNING'], eventOutputs });
    });
    if (done) this.observe(done);
  }

  private observe(run: any): void {
    this.opts.metrics?.observeRun('node', run.node_type, run.status, run.started_at, run.finished_at);
  }

  private async settleFailure(runId: string, message: string): Promise<void> {
    const done = await this.db.tx((tx) => finishNodeRun(tx, { runId, status: 'FAILED', error: message.slice(0, 2000), leaseOwner: this.id, from: ['RUNNING'] }));
    if (done) this.observe(done);
  }
}

/** Resolves true when every promise settled within `ms`, false when time ran out first. */
export async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
