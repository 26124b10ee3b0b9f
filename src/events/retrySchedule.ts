/**
 * Delivery retry timing (Standard Webhooks' schedule by default): the delays, in seconds, before each
 * attempt after the first. Pure.
 */
export const DEFAULT_SCHEDULE = [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

export function parseSchedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d{1,7}(\.\d+)?$/.test(p))) {
    throw new Error('ATELIER_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, e.g. 0,5,300');
  }
  return parts.map(Number);
}

/**
 * Seconds to wait before attempt number `attempt` (1-based; attempt 1 is the first send), or undefined
 * when the schedule is exhausted. Delays of a second or more get ±10 % jitter so retries of many
 * deliveries do not all land at once.
 */
export function delayBeforeAttempt(schedule: number[], attempt: number, random: () => number = Math.random): number | undefined {
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  if (base < 1) return base;
  return base * (0.9 + 0.2 * random());
}
