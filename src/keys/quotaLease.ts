/**
 * Quota leases: the pure arithmetic behind keys/rateCounter.ts. When a key is busy, the counting statement
 * takes a few requests more than are waiting and hands them to this process as a lease; the key's next
 * requests are admitted from it with no database round trip. Leased units are counted as used in the
 * shared windows from the moment they are granted, so no process can ever admit more than the limit.
 *
 * A lease lives at most LEASE_TTL_MS and never past the end of the minute window it was granted in. What
 * is left of it when it ends is given back by the next statement, so quota does not sit unused in one
 * process while another needs it. A process that is refused while some other process may still hold a
 * lease waits for those leases to end and asks again (rateCounter.ts), so a limit of N still admits
 * exactly N. Small limits get no leases at all: there every single request is counted by the database.
 */
import { DAY_MS, MINUTE_MS, type WindowState } from './rateWindow.js';

export const LEASE_TTL_MS = 250;
/** The most one lease may hold. */
export const MAX_LEASE = 256;

export interface Limits {
  perMinute: number;
  perDay: number;
}

/** What this process holds of a key's quota. */
export interface Lease extends Limits {
  /** Window starts (epoch ms, the database's clock) the leased units were counted in. */
  minuteStartMs: number;
  dayStartMs: number;
  /** Requests this process knows to be counted in each window, its own unused units not included. */
  minuteUsed: number;
  dayUsed: number;
  /** Units not yet handed to a request. */
  left: number;
  /** Local monotonic time (performance.now()) after which the lease may not be used. */
  validUntil: number;
  /** The database's epoch ms minus local monotonic ms at the grant, to report a request's time. */
  clockOffsetMs: number;
}

/** A counted request: admitted or not, and where its key's windows stand. */
export interface Counted {
  admitted: boolean;
  minute: WindowState;
  day: WindowState;
  /** The database's clock when the request was counted (epoch ms). */
  nowMs: number;
}

/**
 * The largest lease a key may get: none when one request is more than 1/32 of either limit, because
 * there a unit held by one process is a large share of the window and every request is counted exactly.
 */
export function leaseCap(limits: Limits): number {
  return Math.max(0, Math.min(MAX_LEASE, Math.floor(limits.perMinute / 32), Math.floor(limits.perDay / 32)));
}

/**
 * How many units to ask for beyond the waiting requests: about what the key used in one lease lifetime at
 * the rate it showed since its previous statement (`requests` in `elapsedMs`). A key seen for the first
 * time, or a slow one, gets none, so an idle key never leaves units to give back.
 */
export function leaseWanted(limits: Limits, requests: number, elapsedMs: number | undefined): number {
  const cap = leaseCap(limits);
  if (cap === 0 || elapsedMs === undefined || requests <= 0) return 0;
  return Math.min(cap, Math.floor((requests * LEASE_TTL_MS) / Math.max(elapsedMs, 1)));
}

/** When a lease granted by a statement sent at local time `sentAt` must end: its TTL, or its minute window's end, whichever is first. */
export function leaseValidUntil(sentAt: number, dbNowMs: number, minuteStartMs: number): number {
  // The statement ran after it was sent, so dbNow maps to a local time after sentAt: measuring from sentAt
  // ends the lease early rather than late, whatever the two clocks say.
  return sentAt + Math.min(LEASE_TTL_MS, minuteStartMs + MINUTE_MS - dbNowMs);
}

/**
 * Admits one request from the lease if it is still usable for these limits at local time `now`;
 * undefined when the request must be counted by the database.
 */
export function takeFromLease(lease: Lease | undefined, limits: Limits, now: number): Counted | undefined {
  if (!lease || lease.left <= 0 || now >= lease.validUntil) return undefined;
  if (lease.perMinute !== limits.perMinute || lease.perDay !== limits.perDay) return undefined;
  lease.left--;
  lease.minuteUsed++;
  lease.dayUsed++;
  return {
    admitted: true,
    minute: { limit: lease.perMinute, used: lease.minuteUsed, resetMs: lease.minuteStartMs + MINUTE_MS },
    day: { limit: lease.perDay, used: lease.dayUsed, resetMs: lease.dayStartMs + DAY_MS },
    nowMs: Math.round(now + lease.clockOffsetMs),
  };
}

/** The unused part of a lease that has to go back to the shared windows, if any. */
export interface GiveBack {
  units: number;
  minuteStartMs: number;
  dayStartMs: number;
}

export function giveBackOf(lease: Lease | undefined): GiveBack | undefined {
  return lease && lease.left > 0 ? { units: lease.left, minuteStartMs: lease.minuteStartMs, dayStartMs: lease.dayStartMs } : undefined;
}
