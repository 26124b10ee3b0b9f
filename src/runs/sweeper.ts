import type { Logger } from 'pino';
import type { Db, Queryable } from '../db/pool.js';
import type { FileService } from '../files/service.js';
import type { JobQueue } from '../queue/queue.js';
import { rowsOf } from '../db/typed.js';
import * as q from './queries.js';

/** What the sweeper needs of a run service: ending a run past its deadline (runs/service.ts, workflows/runService.ts). */
interface Cancels {
  cancelById(runId: string, reason: string): Promise<boolean>;
}

/** Stamps a run as having a job in flight (JobQueue.stampEnqueued: runs/ owns the column). */
export async function stampEnqueued(tx: Queryable, runId: string): Promise<void> {
  await tx.query(q.STAMP_ENQUEUED, [runId]);
}

/**
 * Periodic upkeep of runs (it lives with the runs it serves; execution/ knows no run kind), safe to run in every worker process at once (each step is guarded in SQL):
 * re-queues runs whose worker died (lapsed lease), cancels runs past their Cancel-After deadline,
 * forgets idempotency keys older than 24 h, and deletes artifacts past retention.
 */
export class RunSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private ticks = 0;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    private readonly runs: Cancels,
    private readonly files: FileService,
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly workflowRuns: Cancels,
    /** How long a workflow may sit with nothing in flight before its advance step is re-queued. */
    private readonly stallSeconds = 10,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick().catch((err) => this.log.warn({ err }, 'sweep failed; will retry')).finally(() => {
        this.running = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async tick(): Promise<void> {
    this.ticks++;
    for (const { id } of await rowsOf<{ id: string }>(this.db, q.EXPIRED_LEASES)) {
      // The claim is guarded, so a duplicate job from another sweeper is harmless.
      await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'node' }, 120));
      this.log.info({ runId: id }, 'worker lease lapsed; run re-queued');
    }
    for (const { run_id, node_id } of await rowsOf<NodeKey>(this.db, q.EXPIRED_NODE_LEASES)) {
      await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: run_id, kind: 'workflow', nodeId: node_id }, 120));
      this.log.info({ runId: run_id, nodeId: node_id }, 'worker lease lapsed; workflow node re-queued');
    }
    for (const { id, kind } of await rowsOf<{ id: string; kind: string }>(this.db, q.PAST_DEADLINE)) {
      const canceled = kind === 'workflow' ? await this.workflowRuns.cancelById(id, 'Cancel-After deadline passed') : await this.runs.cancelById(id, 'Cancel-After deadline passed');
      if (canceled) this.log.info({ runId: id }, 'run canceled at its deadline');
    }
    // Backstops for jobs lost with a crashed process (the guarded claims make duplicates harmless).
    if (this.ticks % 10 === 0) {
      for (const { id } of await rowsOf<{ id: string }>(this.db, q.STALLED_WORKFLOWS, [this.stallSeconds])) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'workflow' }, 120));
      for (const { id } of await rowsOf<{ id: string }>(this.db, q.STALE_QUEUED, [this.stallSeconds * 6])) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'node' }, 120));
      for (const { run_id, node_id } of await rowsOf<NodeKey>(this.db, q.STALE_QUEUED_NODES, [this.stallSeconds * 6])) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: run_id, kind: 'workflow', nodeId: node_id }, 120));
    }
    if (this.ticks % 60 === 1) await this.db.query(q.DROP_OLD_IDEMPOTENCY);
    if (this.ticks % 600 === 1) {
      const swept = await this.files.sweep();
      if (swept.files) this.log.info(swept, 'expired artifacts deleted');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

interface NodeKey {
  run_id: string;
  node_id: string;
}
