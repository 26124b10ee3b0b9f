import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/pool.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';
import { EngineInputError, type EngineOutputs } from '../engines/types.js';
import type { EngineRunner } from './engineRunner.js';
import type { FileService } from '../files/service.js';
import { recordEvent } from '../events/outbox.js';
import type { JobQueue, RunJob } from '../queue/queue.js';
import type { WorkflowExecutor } from '../workflows/executor.js';
import { newId } from '../ids.js';
import { finishNodeRun } from './settle.js';
import { renderOutput } from './view.js';
import * as q from './queries.js';

export interface WorkerOptions {
  concurrency: number;
  leaseSeconds: number;
  tmpRoot: string;
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
    await this.queue.work(this.opts.concurrency, (job) => this.dispatch(job).catch((err) => {
      // The run's state is in PostgreSQL; the sweeper re-queues whatever this left unfinished.
      this.log.error({ err, job }, 'run job failed');
    }));
  }

  /** A job is a standalone run, a workflow's advance step, or one workflow node. */
  private async dispatch(job: RunJob): Promise<void> {
    if (this.stopping) return;
    if (job.nodeId) return this.workflows.executeNode(job.runId, job.nodeId);
    // Jobs carry their kind; only a job queued without one (an older release) costs a lookup.
    const kind = job.kind ?? (await this.db.query(`SELECT kind FROM runs WHERE id = $1`, [job.runId])).rows[0]?.kind;
    if (kind === 'workflow') return this.workflows.advance(job.runId);
    if (kind === 'node') return this.execute(job.runId);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.workflows.abortAll();
    // Hand running work back rather than leave it until the lease lapses: abort and release the leases.
    for (const [runId, ctl] of this.active) {
      ctl.abort(new Error('worker shutting down'));
      await this.db.query(`UPDATE runs SET lease_expires_at = now() WHERE id = $1 AND lease_owner = $2 AND status = 'RUNNING'`, [runId, this.id]).catch(() => {});
    }
  }

  async execute(runId: string): Promise<void> {
    if (this.stopping) return;
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
      const outputs = await this.runEngine(claimed, ctl.signal, deadline, tmpDir);
      if (ctl.signal.aborted) throw ctl.signal.reason;
      await this.settleSuccess(claimed, outputs);
    } catch (err) {
      const reason = ctl.signal.aborted ? (ctl.signal.reason as Error)?.message : undefined;
      // Canceled (the canceler settled it), lease lost or shutting down (another worker continues): nothing to settle here.
      if (reason === 'canceled' || reason === 'lease lost' || reason === 'worker shutting down') return;
      const message = reason === 'timeout'
        ? `timed out after ${Math.round((deadline - claimed.started_at.getTime()) / 1000)} s`
        : err instanceof Error ? err.message : String(err);
      if (!(err instanceof EngineInputError)) this.log.warn({ runId, err }, 'run failed');
      await this.settleFailure(runId, message);
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
    await this.db.tx(async (tx) => {
      const stored = await this.runner.store(tx, run.account_id, run.id, outputs);
      const eventOutputs = (await renderOutput(this.files, stored, tx)).output;
      await finishNodeRun(tx, { runId: run.id, status: 'COMPLETED', output: stored, leaseOwner: this.id, from: ['RUNNING'], eventOutputs });
    });
  }

  private async settleFailure(runId: string, message: string): Promise<void> {
    await this.db.tx((tx) => finishNodeRun(tx, { runId, status: 'FAILED', error: message.slice(0, 2000), leaseOwner: this.id, from: ['RUNNING'] }));
  }
}
