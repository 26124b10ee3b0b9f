import type { Db } from '../db/pool.js';
import { rowsOf } from '../db/typed.js';
import * as q from './queries.js';

/**
 * Lease renewals of the standalone runs one worker holds, gathered into one UPDATE per short window. A
 * worker holding a thousand remote runs (execution/remoteLane.ts) would otherwise send a thousand
 * single-row UPDATEs per renewal period; gathered, it sends a few. The window is a small part of the
 * lease (an eighth, at most a second), so a renewal is late by far less than the lease has left.
 */
export class HeartbeatBatcher {
  private pending = new Map<string, Array<{ resolve(kept: boolean): void; reject(err: unknown): void }>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly windowMs: number;

  constructor(private readonly db: Db, private readonly workerId: string, private readonly leaseSeconds: number) {
    this.windowMs = Math.min(1000, Math.max(10, (leaseSeconds * 1000) / 8));
  }

  /** Renews one run's lease; resolves false when the run is no longer this worker's (canceled, taken over). */
  beat(runId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(runId);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(runId, [{ resolve, reject }]);
      if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), this.windowMs);
        this.timer.unref();
      }
    });
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const kept = new Set((await rowsOf<{ id: string }>(this.db, q.HEARTBEAT_MANY, [[...batch.keys()], this.workerId, this.leaseSeconds])).map((r) => r.id));
      for (const [id, waiters] of batch) for (const w of waiters) w.resolve(kept.has(id));
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}
