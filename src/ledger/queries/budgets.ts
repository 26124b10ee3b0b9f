import { deliveryInsertSql, eventInsertSql } from '../../events/queries.js';

/**
 * The SQL of spend limits (issue 29), owned by the ledger with the holds they guard: `budgets` (one row
 * per scope, the account's own or one key's, with its day, month and total limits and each period's
 * spend) and `budget_holds` (what each run holds against each scope, per period).
 *
 * The check is part of the statement that reserves a run's price, as CTEs around the ledger's hold
 * (queries.ts holdSql): the account's balance row is locked first (every hold takes it anyway, so the
 * order is always balance, then limits, and a release, which settles the balance first, cannot deadlock
 * with a create); then the scopes that apply (the account's and the key's: at most two rows, however many
 * limits they carry) are locked, and the hold goes through only when every limit of them still has room.
 * The locked rows are the latest committed ones, so concurrent creates of any number of processes
 * serialise per account and no limit is passed by one microcredit. A hold adds to each period's spend
 * (budgetTakeSql); a release gives back to the period the hold was counted in; a capture keeps it
 * (budgetSettleSql). A create of an account and key without limits finds no row and locks nothing more.
 */

type Sql = string;

/** The start of a limit's current period (calendar UTC); 'total' never resets. */
export function periodStartSql(period: Sql): string {
  return `CASE ${period} WHEN 'day' THEN date_trunc('day', now(), 'UTC') WHEN 'month' THEN date_trunc('month', now(), 'UTC') ELSE 'epoch'::timestamptz END`;
}

/** When a period that started at `start` ends (NULL for 'total'). */
export function periodEndSql(period: Sql, start: Sql): string {
  return `CASE ${period} WHEN 'day' THEN ${start} + interval '1 day' WHEN 'month' THEN ${start} + interval '1 month' ELSE NULL END`;
}

const DAY = `date_trunc('day', now(), 'UTC')`;
const MONTH = `date_trunc('month', now(), 'UTC')`;

/** The scopes (budgets rows) of `account` and `key`: the budgets_scope index, one probe each. */
function scopeOf(alias: string, account: Sql, key: Sql): string {
  return `COALESCE(${alias}.key_id, ${alias}.account_id) IN (${account}, ${key})`;
}

/**
 * One row per limit of a budgets row `g` (period, lim, spent and start of its spend, notified, lowered_at),
 * for the readers that show or check limits one by one: `FROM budgets g CROSS JOIN LATERAL ${perLimit} v`.
 */
const PER_LIMIT = `(VALUES ('day', g.day_limit, g.day_spent, g.day_start, g.day_lowered_at),
    ('month', g.month_limit, g.month_spent, g.month_start, g.month_lowered_at),
    ('total', g.total_limit, g.total_spent, 'epoch'::timestamptz, g.total_lowered_at)) AS v(period, lim, spent, start, lowered_at)`;

/**
 * CTEs `budget_lim` and `budget_ok` (ending with a comma): the scopes of `account` and
 * `key` locked, and whether all of their limits admit `amount` more. The hold then reads `budget_ok`:
 * holdSql(account, amount, 'budget_ok', 'budget_ok.ok').
 */
export function budgetGateSql(account: Sql, key: Sql, amount: Sql): string {
  // The locks are taken by budget_scopes_locked (migration 042), whose query has a snapshot of its own, so
  // the rows it answers are the latest and a lock that waited makes PostgreSQL re-check only that small
  // query, not this statement's whole plan (EvalPlanQual). Only when the account or key has a limit: a
  // create with none finds no row in one index probe and does not call it (its hold locks the balance row).
  return `budget_lim AS (
  SELECT g.id, g.account_id, g.key_id, g.day_limit, g.month_limit, g.total_limit, g.total_spent, g.total_notified,
         CASE WHEN g.day_start = ${DAY} THEN g.day_spent ELSE 0 END AS day_spent,
         CASE WHEN g.day_start = ${DAY} THEN g.day_notified ELSE 0 END AS day_notified,
         CASE WHEN g.month_start = ${MONTH} THEN g.month_spent ELSE 0 END AS month_spent,
         CASE WHEN g.month_start = ${MONTH} THEN g.month_notified ELSE 0 END AS month_notified
    FROM budget_scopes_locked(${account}, ${key}) g
   WHERE EXISTS (SELECT 1 FROM budgets x WHERE ${scopeOf('x', account, key)})
), budget_ok AS (
  SELECT NOT EXISTS (SELECT 1 FROM budget_lim WHERE day_spent + ${amount} > day_limit OR month_spent + ${amount} > month_limit
                        OR total_spent + ${amount} > total_limit) AS ok
),`;
}

/** The highest threshold (0, 50, 80, 100) that `spent` of `lim` has reached (0 without a limit). */
function levelSql(spent: Sql, lim: Sql): string {
  return `CASE WHEN ${lim} IS NULL THEN 0 WHEN ${spent} >= ${lim} THEN 100 WHEN ${spent} * 10 >= ${lim} * 8 THEN 80 WHEN ${spent} * 2 >= ${lim} THEN 50 ELSE 0 END`;
}

/**
 * CTEs (starting with a comma) that count a hold made by the CTE named `hold` against the scopes locked by
 * budgetGateSql: each period's spend moves into the current period, the run's share is recorded for its
 * release, and a limit that crossed 50, 80 or 100 % gets its budget.threshold event (once per period) on
 * the run's event stream, delivered to `webhook` (the run's webhook, a jsonb expression) when it wants it.
 * `workflow`: the payload's workflowId (the node type of a model run). `newRun`: the run is created by this
 * statement, so it holds nothing yet (a plain insert; a later hold of a run adds to its share).
 */
export function budgetTakeSql(e: { account: Sql; run: Sql; amount: Sql; hold: string; webhook: Sql; workflow: Sql; newRun?: boolean;
  /** Several runs made by one hold (a batch): each run's share recorded apart, so each run's settle gives back its own. */
  shares?: { from: string; run: Sql; amount: Sql } }): string {
  const webhook = `(${e.webhook})`;
  const a = e.amount;
  const start = (p: 'day' | 'month') => (p === 'day' ? DAY : MONTH);
  const cur = (p: 'day' | 'month') => `(CASE WHEN g.${p}_start = ${start(p)} THEN g.${p}_spent ELSE 0 END)`;
  const curNotified = (p: 'day' | 'month') => `(CASE WHEN g.${p}_start = ${start(p)} THEN g.${p}_notified ELSE 0 END)`;
  const share = (amount: Sql) => `t.day_start, ${amount}, t.month_start, ${amount}, ${amount}`;
  // An insert that meets its row (ON CONFLICT DO UPDATE) updates the latest version of the row it locked,
  // where an UPDATE would find that version newer than its snapshot and re-check it (EvalPlanQual): the
  // scope rows are locked by budget_lim already, so the outcome is the same, for less work.
  return `, budget_take AS (
  INSERT INTO budgets AS g (id, account_id, key_id, day_limit, month_limit, total_limit)
  SELECT l.id, l.account_id, l.key_id, l.day_limit, l.month_limit, l.total_limit FROM budget_lim l, ${e.hold} h
  ON CONFLICT (id) DO UPDATE SET day_start = ${DAY}, day_spent = ${cur('day')} + ${a}, month_start = ${MONTH}, month_spent = ${cur('month')} + ${a},
         total_spent = g.total_spent + ${a},
         day_notified = GREATEST(${curNotified('day')}, ${levelSql(`(${cur('day')} + ${a})`, 'g.day_limit')}),
         month_notified = GREATEST(${curNotified('month')}, ${levelSql(`(${cur('month')} + ${a})`, 'g.month_limit')}),
         total_notified = GREATEST(g.total_notified, ${levelSql(`(g.total_spent + ${a})`, 'g.total_limit')})
  RETURNING g.id, g.key_id, g.day_start, g.month_start, g.day_limit, g.month_limit, g.total_limit, g.day_spent, g.month_spent, g.total_spent,
            g.day_notified, g.month_notified, g.total_notified
), budget_held AS (
  INSERT INTO budget_holds (run_id, budget_id, day_start, day_amount, month_start, month_amount, total_amount)
  ${e.shares
    ? `SELECT ${e.shares.run}, t.id, ${share(e.shares.amount)} FROM budget_take t CROSS JOIN ${e.shares.from} WHERE ${e.shares.amount} > 0`
    : `SELECT ${e.run}, t.id, ${share(a)} FROM budget_take t`}${e.newRun || e.shares ? '' : `
  ON CONFLICT (run_id, budget_id) DO UPDATE SET
    day_amount = CASE WHEN budget_holds.day_start = EXCLUDED.day_start THEN budget_holds.day_amount + EXCLUDED.day_amount ELSE EXCLUDED.day_amount END,
    day_start = EXCLUDED.day_start,
    month_amount = CASE WHEN budget_holds.month_start = EXCLUDED.month_start THEN budget_holds.month_amount + EXCLUDED.month_amount ELSE EXCLUDED.month_amount END,
    month_start = EXCLUDED.month_start,
    total_amount = budget_holds.total_amount + EXCLUDED.total_amount`}
), budget_crossed AS (
  -- The limits of the taken scopes that passed a threshold they had not announced in this period.
  SELECT t.id, t.key_id, c.period, c.lim, c.spent, c.start, c.notified,
         'evt_' || substr(md5(random()::text || clock_timestamp()::text || t.id::text || c.period), 1, 24) AS event_id
    FROM budget_take t JOIN budget_lim l ON l.id = t.id
   CROSS JOIN LATERAL (VALUES ('day', t.day_limit, t.day_spent, t.day_start, t.day_notified, l.day_notified),
      ('month', t.month_limit, t.month_spent, t.month_start, t.month_notified, l.month_notified),
      ('total', t.total_limit, t.total_spent, 'epoch'::timestamptz, t.total_notified, l.total_notified)) AS c(period, lim, spent, start, notified, was)
   WHERE c.notified > c.was
), budget_event AS (
  ${eventInsertSql({
    eventId: 't.event_id', account: e.account, run: e.run, type: `'budget.threshold'`,
    // The delivered body's shape (events/types.ts EventPayload), as events/outbox.ts eventRow builds it.
    payload: `jsonb_build_object('success', true, 'type', 'budget.threshold', 'runId', ${e.run}, 'workflowId', ${e.workflow},
      'data', jsonb_build_object('percent', t.notified, 'scope', CASE WHEN t.key_id IS NULL THEN 'account' ELSE 'key' END,
        'keyId', t.key_id, 'period', t.period, 'limitMicrocredits', t.lim, 'spentMicrocredits', t.spent,
        'periodStart', t.start, 'resetsAt', ${periodEndSql('t.period', 't.start')}),
      'metadata', ${webhook}->'metadata', 'error', NULL, 'createdAt', now())`,
  }, 'budget_crossed t')}
), budget_delivery AS (
  ${deliveryInsertSql({ eventId: 't.event_id', account: e.account, run: e.run, url: `${webhook}->>'url'`, headers: `${webhook}->'headers'` },
    'budget_crossed t', `${webhook} IS NOT NULL AND (${webhook}->'events' IS NULL OR ${webhook}->'events' ? 'budget.threshold')`)}
)`;
}

/**
 * CTEs (starting with a comma) that settle `held` of a run's hold of which `captured` was charged, after
 * the CTE `after` (the balance's settle, so the balance row is locked before any limit): the run's
 * recorded shares go down by what was settled (and are removed once all of them are), and what was not
 * captured goes back to each period's spend when the period it was counted in is still the current one.
 */
export function budgetSettleSql(run: Sql, held: Sql, captured: Sql, after: string): string {
  const back = `GREATEST(${held} - ${captured}, 0)`;
  return `, budget_back AS (
  SELECT h.budget_id, h.day_start, h.month_start,
         LEAST(h.day_amount, ${held}) AS day_settled, LEAST(h.month_amount, ${held}) AS month_settled, LEAST(h.total_amount, ${held}) AS total_settled,
         LEAST(h.day_amount, ${back}) AS day_back, LEAST(h.month_amount, ${back}) AS month_back, LEAST(h.total_amount, ${back}) AS total_back,
         h.day_amount <= ${held} AND h.month_amount <= ${held} AND h.total_amount <= ${held} AS all_settled
    FROM budget_holds h, ${after}
   WHERE h.run_id = ${run} AND (h.day_amount > 0 OR h.month_amount > 0 OR h.total_amount > 0)
     FOR UPDATE OF h
), budget_unhold AS (
  UPDATE budget_holds h SET day_amount = h.day_amount - b.day_settled, month_amount = h.month_amount - b.month_settled, total_amount = h.total_amount - b.total_settled
    FROM budget_back b WHERE h.run_id = ${run} AND h.budget_id = b.budget_id AND NOT b.all_settled
), budget_unheld AS (
  -- A share settled in full is gone: the table holds only live holds, not one row per run ever made.
  DELETE FROM budget_holds h USING budget_back b WHERE h.run_id = ${run} AND h.budget_id = b.budget_id AND b.all_settled
), budget_give AS (
  UPDATE budgets g SET
         day_spent = CASE WHEN g.day_start = b.day_start THEN GREATEST(0, g.day_spent - b.day_back) ELSE g.day_spent END,
         month_spent = CASE WHEN g.month_start = b.month_start THEN GREATEST(0, g.month_spent - b.month_back) ELSE g.month_spent END,
         total_spent = GREATEST(0, g.total_spent - b.total_back)
    FROM budget_back b WHERE g.id = b.budget_id AND (b.day_back > 0 OR b.month_back > 0 OR b.total_back > 0)
)`;
}

const VIEW_COLUMNS = `g.id, g.account_id, g.key_id, v.period, v.lim AS limit_microcredits,
  CASE WHEN v.start = ${periodStartSql('v.period')} THEN v.spent ELSE 0 END AS spent_microcredits,
  ${periodStartSql('v.period')} AS period_start, ${periodEndSql('v.period', periodStartSql('v.period'))} AS resets_at`;

/** An account's own limits and the limits of the keys `$2`: spend of the current period. */
export const BUDGETS_OF = `SELECT ${VIEW_COLUMNS} FROM budgets g CROSS JOIN LATERAL ${PER_LIMIT}
  WHERE v.lim IS NOT NULL AND ((g.account_id = $1 AND g.key_id IS NULL) OR g.key_id = ANY($2::text[]))
  ORDER BY g.key_id NULLS FIRST, array_position(ARRAY['day', 'month', 'total'], v.period)`;

/** The limit (of $1 account and $2 key) that refuses $3 more microcredits now: the key's first, the nearest reset first. */
export const REFUSING_BUDGET = `SELECT * FROM (SELECT ${VIEW_COLUMNS} FROM budgets g CROSS JOIN LATERAL ${PER_LIMIT}
  WHERE v.lim IS NOT NULL AND ${scopeOf('g', '$1::text', '$2::text')}) v
  WHERE v.spent_microcredits + $3::bigint > v.limit_microcredits
  ORDER BY v.key_id NULLS LAST, v.resets_at NULLS LAST LIMIT 1`;

type Period = 'day' | 'month' | 'total';

/**
 * Sets a limit of one period ($1 account, $2 key or NULL, $3 microcredits). The spend of the current
 * period stays: lowering a limit below it refuses further holds until the period resets. Setting a limit
 * where there was none, or lowering one, stamps it lowered (doctor: the period's spend may be above it).
 */
export const SET_BUDGET: Record<Period, string> = Object.fromEntries((['day', 'month', 'total'] as const).map((p) => [p,
  `INSERT INTO budgets (account_id, key_id, ${p}_limit, ${p}_lowered_at, day_start, month_start)
  VALUES ($1, $2, $3, now(), ${DAY}, ${MONTH})
  ON CONFLICT (COALESCE(key_id, account_id)) DO UPDATE SET ${p}_limit = EXCLUDED.${p}_limit,
    ${p}_notified = CASE WHEN budgets.${p}_limit IS NULL THEN 0 ELSE budgets.${p}_notified END,
    ${p}_lowered_at = CASE WHEN budgets.${p}_limit IS NULL OR EXCLUDED.${p}_limit < budgets.${p}_limit THEN now() ELSE budgets.${p}_lowered_at END`])) as Record<Period, string>;

/** Removes the limit of one period ($1 account, $2 key or NULL) of a scope that keeps another (REMOVE_LAST_BUDGET first). */
export const REMOVE_BUDGET: Record<Period, string> = Object.fromEntries((['day', 'month', 'total'] as const).map((p) => [p,
  `UPDATE budgets SET ${p}_limit = NULL, ${p}_notified = 0
    WHERE (CASE WHEN $2::text IS NULL THEN account_id = $1 AND key_id IS NULL ELSE key_id = $2::text END) AND ${p}_limit IS NOT NULL`])) as Record<Period, string>;

/** Removes a scope whose only limit is `p` ($1 account, $2 key or NULL): its live shares go with it (a limit set later counts from zero). */
export const REMOVE_LAST_BUDGET: Record<Period, string> = Object.fromEntries((['day', 'month', 'total'] as const).map((p) => [p,
  `DELETE FROM budgets WHERE (CASE WHEN $2::text IS NULL THEN account_id = $1 AND key_id IS NULL ELSE key_id = $2::text END)
      AND ${(['day', 'month', 'total'] as const).map((o) => (o === p ? `${o}_limit IS NOT NULL` : `${o}_limit IS NULL`)).join(' AND ')}`])) as Record<Period, string>;

/**
 * atelier doctor's findings (ops/doctorChecks.ts): a limit whose current period's spend passed it (none may,
 * unless the limit was set or lowered during the period: kind 'over'), or whose spend is less than the live
 * holds counted in it (kind 'below_holds': a release gave back more than was held).
 */
export const BUDGET_SPEND_FINDINGS = `
WITH held AS (
  SELECT h.budget_id, sum(h.day_amount) FILTER (WHERE h.day_start = g.day_start)::bigint AS day,
         sum(h.month_amount) FILTER (WHERE h.month_start = g.month_start)::bigint AS month, sum(h.total_amount)::bigint AS total
    FROM budget_holds h JOIN budgets g ON g.id = h.budget_id GROUP BY h.budget_id
)
SELECT g.id, g.account_id, g.key_id, v.period, v.lim AS limit_microcredits, v.spent AS spent_microcredits, NULL::bigint AS held, 'over' AS kind
  FROM budgets g CROSS JOIN LATERAL ${PER_LIMIT}
 WHERE v.lim IS NOT NULL AND v.start = ${periodStartSql('v.period')} AND v.spent > v.lim AND v.lowered_at < v.start
UNION ALL
SELECT g.id, g.account_id, g.key_id, v.period, v.lim, v.spent, x.held, 'below_holds'
  FROM budgets g JOIN held ON held.budget_id = g.id CROSS JOIN LATERAL ${PER_LIMIT}
  CROSS JOIN LATERAL (SELECT CASE v.period WHEN 'day' THEN held.day WHEN 'month' THEN held.month ELSE held.total END AS held) x
 WHERE x.held > v.spent
 ORDER BY 1 LIMIT 1000`;
