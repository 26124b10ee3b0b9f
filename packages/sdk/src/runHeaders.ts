import { randomUUID } from 'node:crypto';
import type { RunOptions } from './types-runs.js';

/**
 * Headers of a run create. The Idempotency-Key is always set (generated when the caller gives none) so a
 * retry after a lost answer or a 5xx returns the same run instead of starting and charging a second one.
 */
export function runHeaders(opts: RunOptions): Record<string, string> {
  const h: Record<string, string> = { 'idempotency-key': opts.idempotencyKey ?? `sdk-${randomUUID()}` };
  if (opts.cancelAfter !== undefined) h['cancel-after'] = String(opts.cancelAfter);
  return h;
}
