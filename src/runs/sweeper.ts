import type { Logger } from 'pino';
import type { Db } from '../db/pool.js';
import type { FileService } from '../files/service.js';
import type { JobQueue } from '../queue/queue.js';
import type { NodeRunService } from './service.js';
import * as q from './queries.js';

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
      await this.db.tx((tx) => this.queue.enqueueRun(tx, id, 120));
      this.log.info({ runId: id }, 'worker lease lapsed; run re-queued');
    }
    for (const { id } of (await this.db.query(q.PAST_DEADLINE)).rows) {
      if (await this.runs.cancelById(id, 'Cancel-After deadline passed')) this.log.info({ runId: id }, 'run canceled at its deadline');
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
