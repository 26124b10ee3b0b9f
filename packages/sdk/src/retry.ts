/** Retry policy helpers, kept pure so the client's loop stays readable and testable. */

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether a failed attempt may be sent again: only what can succeed on retry. A 429 was refused before any
 * work, so it is always repeated. A 503 is repeated only when it carries Retry-After (the server says it is
 * temporary, e.g. its database connection dropped); a 503 without it is permanent (MODEL_UNAVAILABLE: the
 * provider is not configured) and so are 500, 502 and 504. A 503 or a lost connection may have happened
 * after the server acted, so those are repeated only for methods that are idempotent by definition, or
 * creates carrying an Idempotency-Key (the server replays the first answer).
 */
export function isRetryable(method: string, hasIdempotencyKey: boolean, status: number | 'network', retryAfter?: number): boolean {
  if (status === 429) return true;
  if (status !== 'network' && !(status === 503 && retryAfter !== undefined)) return false;
  return IDEMPOTENT_METHODS.has(method) || hasIdempotencyKey;
}

/** Retry-After in seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** Exponential backoff with full jitter (250 ms, 500 ms, 1 s … capped at 8 s), so clients do not retry in lockstep. */
export function backoffMs(attempt: number, random = Math.random): number {
  const ceiling = Math.min(8000, 250 * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
