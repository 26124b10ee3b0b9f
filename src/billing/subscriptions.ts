import type { Db } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { countOf, rowOf, rowsOf } from '../db/typed.js';
import { grant } from '../ledger/ledger.js';
import * as q from './queries.js';

export interface Subscription {
  plan: string;
  monthlyMicrocredits: number;
  status: 'active' | 'canceled';
  currentPeriodStart: string;
  currentPeriodEnd: string;
}

export class SubscriptionService {
  constructor(private readonly db: Db) {}

  /** Starts a subscription (granting the first period at once) or changes the plan of the active one. */
  async set(accountId: string, plan: string, monthlyMicrocredits: bigint): Promise<Subscription> {
    if (plan.trim().length < 1 || plan.length > 100) throw validationError('plan', 'must be 1 to 100 characters');
    if (monthlyMicrocredits < 0n || monthlyMicrocredits > 10n ** 15n) throw validationError('monthlyMicrocredits', 'must be from 0 to 10^15');
    await this.db.query(q.SET_SUBSCRIPTION, [accountId, plan.trim(), monthlyMicrocredits]);
    await this.grantDue(accountId);
    return (await this.get(accountId))!;
  }

  async cancel(accountId: string): Promise<Subscription> {
    if ((await countOf(this.db, q.CANCEL_SUBSCRIPTION, [accountId])) === 0) throw new AppError('NOT_FOUND', 'no active subscription');
    return (await this.get(accountId))!;
  }

  async get(accountId: string): Promise<Subscription | undefined> {
    const row = await rowOf<SubscriptionRow>(this.db, q.SUBSCRIPTION, [accountId]);
    if (!row) return undefined;
    return {
      plan: row.plan,
      monthlyMicrocredits: Number(row.monthly_microcredits),
      status: row.status,
      currentPeriodStart: row.current_period_start.toISOString(),
      currentPeriodEnd: row.current_period_end.toISOString(),
    };
  }

  /**
   * Grants every active subscription's current period that has not been granted yet, each in the same
   * transaction as its mark. After downtime only the current period is granted (missed months are not
   * back-filled). Returns how many grants were written.
   */
  async grantDue(accountId: string | null = null): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.db.tx(async (c) => {
        const rows = await rowsOf<DueRow>(c, q.DUE, [accountId]);
        for (const row of rows) {
          await c.query(q.MARK, [row.account_id, row.ps, row.pe]);
          if (row.monthly_microcredits > 0n) {
            await grant(c, row.account_id, row.monthly_microcredits, { kind: 'subscription_grant', note: `subscription period from ${row.ps.toISOString()}` });
          }
        }
        return rows.length;
      });
      total += n;
      if (n < 100) return total;
    }
  }
}

interface SubscriptionRow {
  plan: string;
  monthly_microcredits: bigint;
  status: 'active' | 'canceled';
  current_period_start: Date;
  current_period_end: Date;
}

interface DueRow {
  account_id: string;
  monthly_microcredits: bigint;
  ps: Date;
  pe: Date;
}
