import type { Logger } from 'pino';
import type { Db } from '../db/pool.js';
import type { FileService } from '../files/service.js';
import type { JobQueue } from '../queue/queue.js';
import type { NodeRunService } from '../runs/service.js';
import type { WorkflowRunService } from '../workflows/runService.js';
import * as q from '../runs/queries.js';

/**
 * Periodic upkeep, safe to run in every worker process at once (each step is guarded in SQL):
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
    private readonly runs: NodeRunService,
    private readonly files: FileService,
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly workflowRuns: WorkflowRunService,
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
    for (const { id } of (await this.db.query(q.EXPIRED_LEASES)).rows) {
      // The claim is guarded, so a duplicate job from another sweeper is harmless.
      await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'node' }, 120));
      this.log.info({ runId: id }, 'worker lease lapsed; run re-queued');
    }
    for (const { run_id, node_id } of (await this.db.query(q.EXPIRED_NODE_LEASES)).rows) {
      await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: run_id, kind: 'workflow', nodeId: node_id }, 120));
      this.log.info({ runId: run_id, nodeId: node_id }, 'worker lease lapsed; workflow node re-queued');
    }
    for (const { id, kind } of (await this.db.query(q.PAST_DEADLINE)).rows) {
      const canceled = kind === 'workflow' ? await this.workflowRuns.cancelById(id, 'Cancel-After deadline passed') : await this.runs.cancelById(id, 'Cancel-After deadline passed');
      if (canceled) this.log.info({ runId: id }, 'run canceled at its deadline');
    }
    // Backstops for jobs lost with a crashed process (the guarded claims make duplicates harmless).
    if (this.ticks % 10 === 0) {
      for (const { id } of (await this.db.query(q.STALLED_WORKFLOWS, [this.stallSeconds])).rows) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'workflow' }, 120));
      for (const { id } of (await this.db.query(q.STALE_QUEUED, [this.stallSeconds * 6])).rows) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: id, kind: 'node' }, 120));
      for (const { run_id, node_id } of (await this.db.query(q.STALE_QUEUED_NODES, [this.stallSeconds * 6])).rows) await this.db.tx((tx) => this.queue.enqueueRun(tx, { runId: run_id, kind: 'workflow', nodeId: node_id }, 120));
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
