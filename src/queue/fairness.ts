import type { Queryable } from '../db/pool.js';
import { rowOf } from '../db/typed.js';
import { LIVE_AHEAD, levelPrioritySql, livePrioritySql, RUNNING_NOW } from './queries.js';

/**
 * Fair shares of the worker pool between accounts, kept in PostgreSQL so they hold across any number of
 * worker processes (pg-boss 10 fetches `ORDER BY priority DESC, created_on, id`).
 *
 * 1. A start-time fair queue: each job is sent with priority −(its account's live runs other than its
 *    own). An account's first run goes ahead of another account's tenth, whatever their enqueue order, so
 *    one account's backlog delays another's run by at most the runs already on the engine slots.
 * 2. A per-account concurrency limit (ATELIER_ACCOUNT_CONCURRENCY, default 8; 0 turns it off): a worker
 *    that takes a job of an account already running that many runs or nodes puts it back for a little
 *    later instead of starting it. A standalone run's claim statement checks it (runs/queries.ts CLAIM_RUN);
 *    a workflow node's job is checked before its node is claimed (queue.ts). Workers claiming runs of one
 *    account at the same instant may pass it by the few they took at once; it is a share, not a lock.
 */

/** Lowest priority given: a backlog deeper than this is ordered by age alone. */
export const MIN_PRIORITY = -1_000_000;

/**
 * A run's priority level (runs.priority, -10..10; issue 29) comes before fairness: a job's pg-boss priority
 * is level × PRIORITY_BAND plus its fair share (0 down to MIN_PRIORITY), and the band is wider than any
 * fair share, so every job of a higher level is fetched first; within a level, fair shares decide as
 * before. ±10 bands stay far inside pg-boss's integer column.
 */
export const PRIORITY_BAND = 2_000_000;
export const MAX_PRIORITY_LEVEL = 10;
export const MIN_PRIORITY_LEVEL = -10;

/** A job's pg-boss priority from its run's level and its account's other live runs. Pure. */
export function jobPriority(level: number, liveAhead: number): number {
  const l = Math.max(MIN_PRIORITY_LEVEL, Math.min(MAX_PRIORITY_LEVEL, Math.trunc(level) || 0));
  return l * PRIORITY_BAND + fairPriority(liveAhead);
}

/** Priority of a job whose account has `liveAhead` other queued or running runs. Pure. */
export function fairPriority(liveAhead: number): number {
  return Math.max(MIN_PRIORITY, -Math.max(0, Math.floor(liveAhead))) || 0;
}

/** How long a job over its account's limit waits before it is offered again (seconds). Pure. */
export function deferSeconds(running: number, limit: number): number {
  return Math.min(5, 1 + Math.max(0, running - limit));
}

/**
 * fairPriority() in SQL, for a job written inside the statement that inserts its run (runs/service.ts):
 * that statement's snapshot does not see the new run, so the count is the account's other live runs.
 * `accountParam` is the statement's placeholder holding the account id.
 */
export function fairPrioritySql(accountParam: string): string {
  return livePrioritySql(accountParam, MIN_PRIORITY);
}

/**
 * jobPriority() in SQL for jobs inserted with their runs: `levelSql` the runs' level, `offsetSql` how many
 * of the statement's own new runs go before this one (a batch's index; '0' for a single run).
 */
export function jobPrioritySql(accountParam: string, levelSql: string, offsetSql = '0'): string {
  return levelPrioritySql(accountParam, levelSql, offsetSql, MIN_PRIORITY, PRIORITY_BAND);
}

export async function priorityFor(db: Queryable, runId: string): Promise<number> {
  const r = await rowOf<{ n: number; level: number | null }>(db, LIVE_AHEAD, [runId]);
  return jobPriority(r?.level ?? 0, r?.n ?? 0);
}

/** Seconds to put this job back for when its account is at its limit; undefined to start it now. */
export async function overAccountLimit(db: Queryable, runId: string, limit: number): Promise<number | undefined> {
  if (limit <= 0) return undefined;
  const running = (await rowOf<{ n: number }>(db, RUNNING_NOW, [runId]))?.n ?? 0;
  return running >= limit ? deferSeconds(running, limit) : undefined;
}
