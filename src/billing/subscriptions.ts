import type { Db } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { grant } from './ledger.js';

export interface Subscription {
  plan: string;
  monthlyMicrocredits: number;
  status: 'active' | 'canceled';
  currentPeriodStart: string;
  currentPeriodEnd: string;
}

// Rows whose current period has not been granted yet, with that period computed from the anchor in SQL
// (month arithmetic stays PostgreSQL's). SKIP LOCKED lets several schedulers share the work.
const DUE = `
SELECT account_id, monthly_microcredits, ps, pe FROM (
  SELECT s.*, s.anchor + (n * interval '1 month') AS ps, s.anchor + ((n + 1) * interval '1 month') AS pe
    FROM (SELECT *, (extract(year FROM age(now(), anchor)) * 12 + extract(month FROM age(now(), anchor)))::int AS n
            FROM subscriptions WHERE status = 'active' AND anchor <= now()) s
) d
WHERE granted_period_start IS DISTINCT FROM ps
  AND ($1::text IS NULL OR account_id = $1)
ORDER BY account_id
LIMIT 100
FOR UPDATE SKIP LOCKED`;

const MARK = `UPDATE subscriptions SET current_period_start = $2, current_period_end = $3, granted_period_start = $2, updated_at = now()
  WHERE account_id = $1`;

export class SubscriptionService {
  constructor(private readonly db: Db) {}

  /** Starts a subscription (granting the first period at once) or changes the plan of the active one. */
  // Period bounds travel through JavaScript Dates (millisecond precision), so they are kept at milliseconds in SQL too.
  async set(accountId: string, plan: string, monthlyMicrocredits: bigint): Promise<Subscription> {
    if (plan.trim().length < 1 || plan.length > 100) throw validationError('plan', 'must be 1 to 100 characters');
    if (monthlyMicrocredits < 0n || monthlyMicrocredits > 10n ** 15n) throw validationError('monthlyMicrocredits', 'must be from 0 to 10^15');
    await this.db.query(
      `INSERT INTO subscriptions (account_id, plan, monthly_microcredits, status, anchor, current_period_start, current_period_end)
       VALUES ($1, $2, $3, 'active', date_trunc('milliseconds', now()), date_trunc('milliseconds', now()), date_trunc('milliseconds', now()) + interval '1 month')
       ON CONFLICT (account_id) DO UPDATE SET
         plan = EXCLUDED.plan, monthly_microcredits = EXCLUDED.monthly_microcredits, updated_at = now(),
         -- A canceled subscription restarts with a new period; an active one keeps its period (the new amount applies from the next).
         status = 'active',
         anchor = CASE WHEN subscriptions.status = 'canceled' THEN date_trunc('milliseconds', now()) ELSE subscriptions.anchor END,
         current_period_start = CASE WHEN subscriptions.status = 'canceled' THEN now() ELSE subscriptions.current_period_start END,
         current_period_end = CASE WHEN subscriptions.status = 'canceled' THEN now() + interval '1 month' ELSE subscriptions.current_period_end END,
         granted_period_start = CASE WHEN subscriptions.status = 'canceled' THEN NULL ELSE subscriptions.granted_period_start END`,
      [accountId, plan.trim(), monthlyMicrocredits],
    );
    await this.grantDue(accountId);
    return (await this.get(accountId))!;
  }

  async cancel(accountId: string): Promise<Subscription> {
    const r = await this.db.query(`UPDATE subscriptions SET status = 'canceled', updated_at = now() WHERE account_id = $1 AND status = 'active' RETURNING account_id`, [accountId]);
    if (r.rowCount === 0) throw new AppError('NOT_FOUND', 'no active subscription');
    return (await this.get(accountId))!;
  }

  async get(accountId: string): Promise<Subscription | undefined> {
    const row = (await this.db.query(`SELECT * FROM subscriptions WHERE account_id = $1`, [accountId])).rows[0];
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
        const rows = (await c.query(DUE, [accountId])).rows;
        for (const row of rows) {
          await c.query(MARK, [row.account_id, row.ps, row.pe]);
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
