import { MINUTE_MS, type WindowState } from '../keys/rateWindow.js';

/**
 * Requests per client address per UTC minute, counted in this process, for public routes that have no
 * key to count against (the public catalog). Keyed requests use the keys' own windows (keys/service.ts);
 * this is the same fixed-window arithmetic (keys/rateWindow.ts) without the database, since a public read
 * of static data does not need a limit shared exactly across processes. Pure apart from the injected clock.
 */
export class AddressLimiter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly perMinute: number, private readonly now: () => number = Date.now) {}

  /** Counts one request of `address`; says whether it is admitted and the window's state for the headers. */
  take(address: string): { admitted: boolean; window: WindowState; nowMs: number } {
    const nowMs = this.now();
    const start = nowMs - (nowMs % MINUTE_MS);
    // A new minute forgets every address, so the map holds at most one minute's clients.
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const used = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, used);
    return { admitted: used <= this.perMinute, window: { limit: this.perMinute, used: Math.min(used, this.perMinute), resetMs: start + MINUTE_MS }, nowMs };
  }
}
