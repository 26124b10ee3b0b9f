import type { Queryable } from '../db/pool.js';
import { rowOf } from '../db/typed.js';
import { AppError, validationError } from '../errors.js';
import { KEY_MAX_PRIORITY, SET_MAX_PRIORITY } from './queries/priority.js';

/**
 * Run priority levels (issue 29): 0 is normal. Any key may ask for less (down to LOWEST_PRIORITY, e.g. for
 * background batches); more only up to its ceiling (api_keys.max_priority), which only the operator sets
 * (`atelier keys set-priority`), 0 by default. queue/fairness.ts turns a level into the queue's order.
 */
export const LOWEST_PRIORITY = -10;
export const HIGHEST_PRIORITY = 10;

/**
 * The level a create may run at: `asked` (default 0), or the refusal naming the key's ceiling. A ceiling is
 * looked up only when more than normal is asked, so ordinary creates cost no query.
 */
export async function allowedPriority(db: Queryable, keyId: string | undefined, asked: number | undefined, path = 'body.priority'): Promise<number> {
  if (asked === undefined || asked === null) return 0;
  if (!Number.isInteger(asked) || asked < LOWEST_PRIORITY || asked > HIGHEST_PRIORITY) {
    throw validationError(path, `must be an integer from ${LOWEST_PRIORITY} to ${HIGHEST_PRIORITY}`);
  }
  if (asked <= 0) return asked;
  const max = keyId === undefined ? 0 : ((await rowOf<{ max_priority: number }>(db, KEY_MAX_PRIORITY, [keyId]))?.max_priority ?? 0);
  if (asked > max) {
    throw new AppError('PRIORITY_NOT_ALLOWED', `this key may ask for priority up to ${max}; ${asked} was asked (the operator raises a key's ceiling with atelier keys set-priority)`, {
      extra: { maxPriority: max, requestedPriority: asked },
    });
  }
  return asked;
}

/** Sets the ceiling of the user's unrevoked key `label` (operator only: the CLI). */
export async function setMaxPriority(db: Queryable, userId: string, label: string, max: number): Promise<{ id: string; label: string; maxPriority: number }> {
  if (!Number.isInteger(max) || max < 0 || max > HIGHEST_PRIORITY) throw validationError('max-priority', `must be an integer from 0 to ${HIGHEST_PRIORITY}`);
  const r = await rowOf<{ id: string; label: string; max_priority: number }>(db, SET_MAX_PRIORITY, [userId, label, max]);
  if (!r) throw new AppError('NOT_FOUND', `no active key labelled ${label}`);
  return { id: r.id, label: r.label, maxPriority: r.max_priority };
}
