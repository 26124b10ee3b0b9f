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
