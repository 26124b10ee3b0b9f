/** The SQL of billing/: subscriptions (its own table) and the balance read of GET /v1/credits/balance. Money moves go through ledger/. */

/** BALANCES_AND_SUBSCRIPTIONS: an account's balance (int8, so bigint: db/pool.ts) and whether it subscribes. */
export interface BalanceRow {
  account_id: string;
  posted: bigint;
  reserved: bigint;
  active: boolean;
}

/**
 * Balances and whether a subscription is active, for a batch of accounts ($1, each once): the balance
 * reads that arrive together share one statement (billing/service.ts).
 */
export const BALANCES_AND_SUBSCRIPTIONS = `SELECT b.account_id, b.posted, b.reserved, EXISTS (SELECT 1 FROM subscriptions s
  WHERE s.account_id = b.account_id AND s.status = 'active' AND s.current_period_end > now()) AS active
  FROM account_balances b WHERE b.account_id = ANY($1::text[])`;
// Rows whose current period has not been granted yet, with that period computed from the anchor in SQL
// (month arithmetic stays PostgreSQL's). SKIP LOCKED lets several schedulers share the work.
export const DUE = `
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

export const MARK = `UPDATE subscriptions SET current_period_start = $2, current_period_end = $3, granted_period_start = $2, updated_at = now()
  WHERE account_id = $1`;


/** Starts a subscription or changes the plan of the active one. $1 account, $2 plan, $3 monthly microcredits. */
// Period bounds travel through JavaScript Dates (millisecond precision), so they are kept at milliseconds in SQL too.
export const SET_SUBSCRIPTION = `INSERT INTO subscriptions (account_id, plan, monthly_microcredits, status, anchor, current_period_start, current_period_end)
       VALUES ($1, $2, $3, 'active', date_trunc('milliseconds', now()), date_trunc('milliseconds', now()), date_trunc('milliseconds', now()) + interval '1 month')
       ON CONFLICT (account_id) DO UPDATE SET
         plan = EXCLUDED.plan, monthly_microcredits = EXCLUDED.monthly_microcredits, updated_at = now(),
         -- A canceled subscription restarts with a new period; an active one keeps its period (the new amount applies from the next).
         status = 'active',
         anchor = CASE WHEN subscriptions.status = 'canceled' THEN date_trunc('milliseconds', now()) ELSE subscriptions.anchor END,
         current_period_start = CASE WHEN subscriptions.status = 'canceled' THEN now() ELSE subscriptions.current_period_start END,
         current_period_end = CASE WHEN subscriptions.status = 'canceled' THEN now() + interval '1 month' ELSE subscriptions.current_period_end END,
         granted_period_start = CASE WHEN subscriptions.status = 'canceled' THEN NULL ELSE subscriptions.granted_period_start END`;

export const CANCEL_SUBSCRIPTION = `UPDATE subscriptions SET status = 'canceled', updated_at = now() WHERE account_id = $1 AND status = 'active' RETURNING account_id`;
export const SUBSCRIPTION = `SELECT plan, monthly_microcredits, status, current_period_start, current_period_end FROM subscriptions WHERE account_id = $1`;
