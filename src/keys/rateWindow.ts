/**
 * Pure arithmetic of the two fixed rate-limit windows (UTC minute and UTC day): which window is the
 * tighter one and what the headers say. The counting itself happens in one SQL statement (keys/queries.ts).
 */
export interface WindowState {
  limit: number;
  used: number;
  /** Epoch ms when this window ends. */
  resetMs: number;
}

export type RateHeaders = Record<'X-RateLimit-Limit' | 'X-RateLimit-Remaining' | 'X-RateLimit-Reset', string>;

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** The window with fewer requests left (the minute window on a tie, since it resets sooner). */
export function tighterWindow(minute: WindowState, day: WindowState): WindowState {
  const left = (w: WindowState) => Math.max(0, w.limit - w.used);
  return left(day) < left(minute) ? day : minute;
}

export function rateHeaders(minute: WindowState, day: WindowState): RateHeaders {
  const w = tighterWindow(minute, day);
  return {
    'X-RateLimit-Limit': String(w.limit),
    'X-RateLimit-Remaining': String(Math.max(0, w.limit - w.used)),
    'X-RateLimit-Reset': String(w.resetMs),
  };
}

/** Seconds until the exhausted window(s) reset; at least 1 so clients never spin. */
export function retryAfterSeconds(minute: WindowState, day: WindowState, nowMs: number): number {
  const blocking = [minute, day].filter((w) => w.used >= w.limit);
  const until = blocking.length ? Math.max(...blocking.map((w) => w.resetMs)) : minute.resetMs;
  return Math.max(1, Math.ceil((until - nowMs) / 1000));
}

/**
 * A refused request read its counters from the snapshot before the concurrent requests that filled the
 * window committed, so they can look not-quite-full. It was refused, so at least one window is full:
 * report the tighter one as exhausted.
 */
export function asRefused(minute: WindowState, day: WindowState): { minute: WindowState; day: WindowState } {
  if (minute.used >= minute.limit || day.used >= day.limit) return { minute, day };
  return tighterWindow(minute, day) === day
    ? { minute, day: { ...day, used: day.limit } }
    : { minute: { ...minute, used: minute.limit }, day };
}
