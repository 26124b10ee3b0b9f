import { performance } from 'node:perf_hooks';
import type { Db } from '../db/pool.js';
import { asRefused, DAY_MS, MINUTE_MS } from './rateWindow.js';
import { COUNT_REQUESTS, type CountedRequestsRow } from './queries.js';
import { giveBackOf, LEASE_TTL_MS, leaseValidUntil, leaseWanted, takeFromLease, type Counted, type GiveBack, type Lease, type Limits } from './quotaLease.js';
import { preparedRowsOf } from '../db/typed.js';

export type { Counted } from './quotaLease.js';

interface Waiter {
  resolve(c: Counted | undefined): void;
  reject(err: unknown): void;
  /** Already sent once and found its key's window row missing. */
  retried: boolean;
  /** How many times it waited for other processes' leases to end before being refused. */
  waits: number;
}

interface PendingKey extends Limits {
  waiters: Waiter[];
  /** The unused part of an ended lease, given back by this statement. */
  back?: GiveBack;
}

/** What this process knows of one key between statements. */
interface KeyState {
  lease?: Lease;
  /** A statement asking for a lease of this key is in flight: at most one lease is ever asked for or held. */
  asking: boolean;
  /** Requests of the key since its last statement was sent, and when that was (local monotonic ms). */
  requestsSince: number;
  lastSentAt?: number;
  lastSeenAt: number;
}

/** A refused request waits for other processes' leases at most this many times before it is refused. */
const MAX_LEASE_WAITS = 4;
/** Key states unused this long are forgotten. */
const FORGET_AFTER_MS = 2 * MINUTE_MS;

/**
 * Exact rate limiting shared by every API process, at a fraction of a statement per request:
 * - the requests of all keys that arrive while a statement is being prepared or is in flight are counted
 *   together by the next one (keys/queries.ts COUNT_REQUESTS: arrays in, one row per key out), under a row
 *   lock per key, so a limit of N admits exactly N across processes;
 * - a busy key also gets a short lease of extra units (keys/quotaLease.ts) and its next requests are
 *   admitted here without a round trip; the unused part goes back when the lease ends.
 * Each admitted request gets its own position in the window for X-RateLimit-Remaining.
 *
 * At most `maxInFlight` statements run at once, so under load batches grow instead of statements queueing
 * for pool connections; an idle process still counts a lone request in one round trip.
 */
export class RateCounter {
  private pending = new Map<string, PendingKey>();
  private readonly keys = new Map<string, KeyState>();
  private scheduled = false;
  private closed = false;
  private inFlight = 0;
  private sweeper: NodeJS.Timeout | undefined;
  readonly stats = { statements: 0, requests: 0, leased: 0 };

  constructor(private readonly db: Db, private readonly maxInFlight = 2) {}

  /**
   * Counts one request of the key: at once when the process holds a lease of it, else by the next
   * statement (the promise). Undefined when the key no longer exists.
   */
  count(key: { id: string; perMinute: number; perDay: number }): Counted | Promise<Counted | undefined> {
    const now = performance.now();
    let state = this.keys.get(key.id);
    if (!state) {
      state = { requestsSince: 0, lastSeenAt: now, asking: false };
      this.keys.set(key.id, state);
    }
    state.lastSeenAt = now;
    state.requestsSince++;
    const fromLease = takeFromLease(state.lease, key, now);
    if (fromLease) {
      this.stats.leased++;
      return fromLease;
    }
    return new Promise((resolve, reject) => this.enqueue(key.id, key, { resolve, reject, retried: false, waits: 0 }));
  }

  /** Gives back every unused lease (graceful shutdown), so other processes can use the units at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const [id, state] of this.keys) this.endLease(id, state);
    await this.flush(true);
  }

  /** A request counted once more: from a lease granted meanwhile if there is one, else by the next statement. */
  private again(keyId: string, limits: Limits, waiter: Waiter): void {
    const fromLease = takeFromLease(this.keys.get(keyId)?.lease, limits, performance.now());
    if (fromLease) waiter.resolve(fromLease);
    else this.enqueue(keyId, limits, waiter);
  }

  private enqueue(keyId: string, limits: Limits, waiter: Waiter): void {
    let p = this.pending.get(keyId);
    if (!p) {
      p = { perMinute: limits.perMinute, perDay: limits.perDay, waiters: [] };
      this.pending.set(keyId, p);
    }
    // The latest limits win (a cached record refreshed after an edit).
    p.perMinute = limits.perMinute;
    p.perDay = limits.perDay;
    p.waiters.push(waiter);
    const state = this.keys.get(keyId);
    // A lease that cannot serve this request (used up, ended, other limits) ends now; its rest goes back.
    if (state?.lease) this.endLease(keyId, state);
    this.schedule();
  }

  /** Drops the key's lease; what is left of it joins the key's next statement. */
  private endLease(keyId: string, state: KeyState): void {
    const lease = state.lease;
    const back = giveBackOf(lease);
    state.lease = undefined;
    if (!lease || !back) return;
    let p = this.pending.get(keyId);
    if (!p) {
      p = { perMinute: lease.perMinute, perDay: lease.perDay, waiters: [] };
      this.pending.set(keyId, p);
    }
    // At most one lease of a key is asked for or held at a time (KeyState.asking), so a statement carries
    // at most one give-back; should two ever meet, units of the same windows add up.
    if (p.back && p.back.minuteStartMs === back.minuteStartMs && p.back.dayStartMs === back.dayStartMs) p.back.units += back.units;
    else p.back = back;
  }

  private schedule(): void {
    // After close() no lease is given out any more, so nothing needs sweeping.
    if (!this.closed) this.startSweeper();
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.size === 0) return;
    this.scheduled = true;
    // After this turn's I/O callbacks: every request parsed in this turn joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Ends leases past their time (giving their rest back) and forgets keys not seen for a while. */
  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      let giving = false;
      for (const [id, state] of this.keys) {
        if (state.lease && now >= state.lease.validUntil) {
          giving ||= state.lease.left > 0;
          this.endLease(id, state);
        }
        if (!state.lease && now - state.lastSeenAt > FORGET_AFTER_MS) this.keys.delete(id);
      }
      if (giving) this.schedule();
    }, LEASE_TTL_MS / 2);
    this.sweeper.unref();
  }

  private async flush(force = false): Promise<void> {
    if ((!force && this.inFlight >= this.maxInFlight) || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.inFlight++;
    const ids = [...batch.keys()];
    const sentAt = performance.now();
    const extra = ids.map((id) => {
      const p = batch.get(id)!;
      const state = this.keys.get(id);
      if (!state || p.waiters.length === 0 || this.closed || state.asking || state.lease) return 0;
      const wanted = leaseWanted(p, state.requestsSince, state.lastSentAt === undefined ? undefined : sentAt - state.lastSentAt);
      state.requestsSince = 0;
      state.lastSentAt = sentAt;
      state.asking = wanted > 0;
      return wanted;
    });
    try {
      this.stats.statements++;
      this.stats.requests += ids.reduce((n, id) => n + batch.get(id)!.waiters.length, 0);
      const rows = await preparedRowsOf<CountedRequestsRow>(this.db, 'atelier_count_requests', COUNT_REQUESTS, [
        ids,
        ids.map((id) => batch.get(id)!.waiters.length),
        extra,
        ids.map((id) => batch.get(id)!.perMinute),
        ids.map((id) => batch.get(id)!.perDay),
        ids.map((id) => batch.get(id)!.back?.units ?? 0),
        ids.map((id) => batch.get(id)!.back?.minuteStartMs ?? 0),
        ids.map((id) => batch.get(id)!.back?.dayStartMs ?? 0),
      ]);
      for (const row of rows) {
        const p = batch.get(row.key_id);
        if (!p) continue;
        batch.delete(row.key_id);
        if (p.waiters.length === 0) continue; // only a give-back
        if (row.admitted === null) {
          // No window row yet (it was just inserted) or no such key any more: count again once.
          for (const w of p.waiters) {
            if (w.retried) w.resolve(undefined);
            else this.again(row.key_id, p, { ...w, retried: true });
          }
          continue;
        }
        this.distribute(row.key_id, p, row, sentAt);
      }
      for (const p of batch.values()) for (const w of p.waiters) w.resolve(undefined);
    } catch (err) {
      for (const p of batch.values()) for (const w of p.waiters) w.reject(err);
    } finally {
      ids.forEach((id, i) => {
        const state = this.keys.get(id);
        if (state && extra[i]! > 0) state.asking = false;
      });
      this.inFlight--;
      this.schedule();
    }
  }

  private distribute(keyId: string, p: PendingKey, row: CountedRequestsRow, sentAt: number): void {
    const admitted = Number(row.admitted);
    const leased = Number(row.leased);
    const minuteUsed = Number(row.minute_used);
    const dayUsed = Number(row.day_used);
    const minuteStartMs = Number(row.minute_start_ms);
    const dayStartMs = Number(row.day_start_ms);
    const minuteReset = minuteStartMs + MINUTE_MS;
    const dayReset = dayStartMs + DAY_MS;
    const nowMs = Number(row.now_ms);
    const leaseUntilMs = Number(row.lease_until_ms);
    const state = this.keys.get(keyId);
    if (state && leased > 0) {
      state.lease = {
        perMinute: p.perMinute, perDay: p.perDay, minuteStartMs, dayStartMs,
        minuteUsed: minuteUsed + admitted, dayUsed: dayUsed + admitted, left: leased,
        validUntil: leaseValidUntil(sentAt, nowMs, minuteStartMs),
        clockOffsetMs: nowMs - sentAt,
      };
    }
    // Refused while some process may still hold a lease of this key: its unused units may come back, so ask
    // again once every such lease has ended and been given back (holders give back within half a lease
    // lifetime, see the sweeper) rather than refuse a request the limit has room for.
    const leasesOut = leaseUntilMs > nowMs;
    p.waiters.forEach((w, i) => {
      if (i < admitted) {
        w.resolve({
          admitted: true,
          minute: { limit: p.perMinute, used: minuteUsed + i + 1, resetMs: minuteReset },
          day: { limit: p.perDay, used: dayUsed + i + 1, resetMs: dayReset },
          nowMs,
        });
      } else if (leasesOut && w.waits < MAX_LEASE_WAITS) {
        const limits = { perMinute: p.perMinute, perDay: p.perDay };
        setTimeout(() => this.again(keyId, limits, { ...w, waits: w.waits + 1 }), leaseUntilMs - nowMs + LEASE_TTL_MS / 2 + 50);
      } else {
        const windows = asRefused(
          { limit: p.perMinute, used: minuteUsed + admitted + leased, resetMs: minuteReset },
          { limit: p.perDay, used: dayUsed + admitted + leased, resetMs: dayReset },
        );
        w.resolve({ admitted: false, ...windows, nowMs });
      }
    });
  }
}
