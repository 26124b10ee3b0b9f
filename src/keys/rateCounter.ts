import type { Db } from '../db/pool.js';
import { asRefused, DAY_MS, MINUTE_MS, type WindowState } from './rateWindow.js';
import { COUNT_REQUESTS } from './queries.js';

/** One request's place in its key's windows. */
export interface Counted {
  admitted: boolean;
  minute: WindowState;
  day: WindowState;
  /** The database's clock when the request was counted (epoch ms). */
  nowMs: number;
}

interface Waiter {
  resolve(c: Counted | undefined): void;
  reject(err: unknown): void;
  /** Already sent once and found its key's window row missing. */
  retried: boolean;
}

interface PendingKey {
  perMinute: number;
  perDay: number;
  waiters: Waiter[];
}

/**
 * Exact rate limiting shared by every API process, at one statement per batch instead of one committed
 * UPDATE per request: the requests of all keys that arrive while a statement is being prepared or is in
 * flight are counted together by the next one (keys/queries.ts COUNT_REQUESTS: arrays in, one row per key
 * out). The database admits each key min(wanted, room) requests under a row lock, so a limit of N admits
 * exactly N across processes; here the admitted ones are handed out in arrival order, each with its own
 * position in the window for X-RateLimit-Remaining.
 *
 * At most `maxInFlight` statements run at once, so under load batches grow instead of statements queueing
 * for pool connections; an idle process still counts a lone request in one round trip.
 */
export class RateCounter {
  private pending = new Map<string, PendingKey>();
  private scheduled = false;
  private inFlight = 0;
  readonly stats = { statements: 0, requests: 0 };

  constructor(private readonly db: Db, private readonly maxInFlight = 2) {}

  /** Counts one request of the key. Undefined when the key no longer exists. */
  count(key: { id: string; perMinute: number; perDay: number }): Promise<Counted | undefined> {
    return new Promise((resolve, reject) => this.enqueue(key.id, key.perMinute, key.perDay, { resolve, reject, retried: false }));
  }

  private enqueue(keyId: string, perMinute: number, perDay: number, waiter: Waiter): void {
    let p = this.pending.get(keyId);
    if (!p) {
      p = { perMinute, perDay, waiters: [] };
      this.pending.set(keyId, p);
    }
    // The latest limits win (a cached record refreshed after an edit).
    p.perMinute = perMinute;
    p.perDay = perDay;
    p.waiters.push(waiter);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.size === 0) return;
    this.scheduled = true;
    // After this turn's I/O callbacks: every request parsed in this turn joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.inFlight++;
    const ids = [...batch.keys()];
    try {
      this.stats.statements++;
      this.stats.requests += ids.reduce((n, id) => n + batch.get(id)!.waiters.length, 0);
      const rows = (await this.db.queryPrepared('atelier_count_requests', COUNT_REQUESTS, [
        ids,
        ids.map((id) => batch.get(id)!.waiters.length),
        ids.map((id) => batch.get(id)!.perMinute),
        ids.map((id) => batch.get(id)!.perDay),
      ])).rows;
      for (const row of rows) {
        const p = batch.get(row.key_id);
        if (!p) continue;
        batch.delete(row.key_id);
        if (row.admitted === null) {
          // No window row yet (it was just inserted) or no such key any more: count again once.
          for (const w of p.waiters) {
            if (w.retried) w.resolve(undefined);
            else this.enqueue(row.key_id, p.perMinute, p.perDay, { ...w, retried: true });
          }
          continue;
        }
        distribute(p, row);
      }
      for (const p of batch.values()) for (const w of p.waiters) w.resolve(undefined);
    } catch (err) {
      for (const p of batch.values()) for (const w of p.waiters) w.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}

function distribute(p: PendingKey, row: any): void {
  const admitted = Number(row.admitted);
  const minuteUsed = Number(row.minute_used);
  const dayUsed = Number(row.day_used);
  const minuteReset = Number(row.minute_start_ms) + MINUTE_MS;
  const dayReset = Number(row.day_start_ms) + DAY_MS;
  const nowMs = Number(row.now_ms);
  p.waiters.forEach((w, i) => {
    if (i < admitted) {
      w.resolve({
        admitted: true,
        minute: { limit: p.perMinute, used: minuteUsed + i + 1, resetMs: minuteReset },
        day: { limit: p.perDay, used: dayUsed + i + 1, resetMs: dayReset },
        nowMs,
      });
    } else {
      const windows = asRefused(
        { limit: p.perMinute, used: minuteUsed + admitted, resetMs: minuteReset },
        { limit: p.perDay, used: dayUsed + admitted, resetMs: dayReset },
      );
      w.resolve({ admitted: false, ...windows, nowMs });
    }
  });
}
