import type { Queryable } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { rowOf, rowsOf } from '../db/typed.js';
import * as q from './queries/budgets.js';

/**
 * Spend limits (issue 29): per account or per key, per UTC day, per UTC month or in total. They are
 * checked inside the statement that holds a run's price (queries/budgets.ts, used by queries.ts
 * HOLD_AND_RECORD and runs/queries.ts createRunStatement), so they cannot be passed under any concurrency;
 * this file sets them, shows them and names the one that refused a hold.
 */
export type BudgetPeriod = 'day' | 'month' | 'total';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'month', 'total'];

export interface Budget {
  scope: 'account' | 'key';
  keyId: string | null;
  period: BudgetPeriod;
  limitMicrocredits: number;
  /** Spent (held or charged) in the current period; releases give back, captures keep. */
  spentMicrocredits: number;
  periodStart: string;
  /** When the period's spend starts again from zero (null for a total limit). */
  resetsAt: string | null;
}

/** The largest limit: a balance cannot pass it either (ledger.ts MAX_BALANCE). */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

interface BudgetRow {
  key_id: string | null;
  period: BudgetPeriod;
  limit_microcredits: bigint;
  spent_microcredits: bigint;
  period_start: Date;
  resets_at: Date | null;
}

function toBudget(r: BudgetRow): Budget {
  return {
    scope: r.key_id ? 'key' : 'account',
    keyId: r.key_id,
    period: r.period,
    limitMicrocredits: Number(r.limit_microcredits),
    spentMicrocredits: Number(r.spent_microcredits),
    periodStart: r.period_start.toISOString(),
    resetsAt: r.resets_at ? r.resets_at.toISOString() : null,
  };
}

/** The account's own limits and those of the keys `keyIds`. */
export async function budgetsOf(db: Queryable, accountId: string, keyIds: string[] = []): Promise<Budget[]> {
  return (await rowsOf<BudgetRow>(db, q.BUDGETS_OF, [accountId, keyIds])).map(toBudget);
}

/** Checks a limits object of a request ({ day?, month?, total? }: microcredits, or null to remove). */
export function parseLimits(raw: unknown, path: string): Partial<Record<BudgetPeriod, number | null>> {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw validationError(path, 'must be an object with day, month or total');
  const out: Partial<Record<BudgetPeriod, number | null>> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!(BUDGET_PERIODS as readonly string[]).includes(k)) throw validationError(`${path}.${k}`, 'is not a period (day, month, total)');
    if (v !== null && (!Number.isSafeInteger(v) || (v as number) < 0 || (v as number) > MAX_LIMIT)) {
      throw validationError(`${path}.${k}`, `must be null or an integer of microcredits from 0 to ${MAX_LIMIT}`);
    }
    out[k as BudgetPeriod] = v as number | null;
  }
  return out;
}

/**
 * Sets (a number) or removes (null) limits of the account (`keyId` null) or of one of its keys. One row
 * holds a scope's limits (queries/budgets.ts): sets go first, so a scope that keeps a limit keeps the
 * spend it counted; the row goes with its last limit.
 */
export async function setLimits(db: Queryable, accountId: string, keyId: string | null, limits: Partial<Record<BudgetPeriod, number | null>>): Promise<void> {
  for (const period of BUDGET_PERIODS) {
    const v = limits[period];
    if (v !== undefined && v !== null) await db.query(q.SET_BUDGET[period], [accountId, keyId, BigInt(v)]);
  }
  for (const period of BUDGET_PERIODS) {
    if (limits[period] !== null) continue;
    await db.query(q.REMOVE_LAST_BUDGET[period], [accountId, keyId]);
    await db.query(q.REMOVE_BUDGET[period], [accountId, keyId]);
  }
}

/** The refusal naming the limit that does not admit `amount` more now, if one does not. */
export async function budgetRefusal(db: Queryable, accountId: string, keyId: string | null, amount: bigint): Promise<AppError | undefined> {
  const r = await rowOf<BudgetRow>(db, q.REFUSING_BUDGET, [accountId, keyId, amount]);
  if (!r) return undefined;
  const b = toBudget(r);
  const left = Math.max(0, b.limitMicrocredits - b.spentMicrocredits);
  const when = b.resetsAt ? `; it resets at ${b.resetsAt}` : '';
  const period = b.period === 'total' ? 'total' : `${b.period === 'day' ? 'daily' : 'monthly'}`;
  return new AppError('BUDGET_EXCEEDED', `this run costs ${amount} microcredits but the ${b.scope === 'key' ? "key's" : "account's"} ${period} spend limit of ${b.limitMicrocredits} has ${left} left${when}`, {
    extra: { limit: { ...b }, requiredMicrocredits: Number(amount) },
  });
}
