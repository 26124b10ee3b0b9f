import { deliveryInsertSql, eventInsertSql } from '../../events/queries.js';

/**
 * The SQL of spend limits (issue 29), owned by the ledger with the holds they guard: `budgets` (a limit
 * and its current period's spend) and `budget_holds` (what each run holds against each limit).
 *
 * The check is part of the statement that reserves a run's price, as CTEs around the ledger's hold
 * (queries.ts holdSql): the account's balance row is locked first (every hold takes it anyway, so the
 * order is always balance, then limits, and a release, which settles the balance first, cannot deadlock
 * with a create); then the limits that apply (the account's and the key's) are locked, and the hold goes
 * through only when every one of them still has room. The locked rows are the latest committed ones, so
 * concurrent creates of any number of processes serialise per account and no limit is passed by one
 * microcredit. A hold adds to each limit's spend (budgetTakeSql); a release gives back to the period the
 * hold was counted in; a capture keeps it (budgetSettleSql).
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

/**
 * CTEs `budget_lock`, `budget_lim` and `budget_ok` (ending with a comma): the limits of `account` and
 * `key` locked, and whether all of them admit `amount` more. The hold then reads `budget_ok`:
 * holdSql(account, amount, 'budget_ok', 'budget_ok.ok').
 */
export function budgetGateSql(account: Sql, key: Sql, amount: Sql): string {
  // Only when the account or key has a limit: a create with none pays no extra lock (its hold locks the row anyway).
  return `budget_lock AS (
  SELECT 1 FROM account_balances WHERE account_id = ${account}
     AND EXISTS (SELECT 1 FROM budgets x WHERE (x.account_id = ${account} AND x.key_id IS NULL) OR x.key_id = ${key})
     FOR NO KEY UPDATE
), budget_lim AS (
  SELECT g.id, g.limit_microcredits AS lim, p.start,
         CASE WHEN g.period_start = p.start THEN g.spent_microcredits ELSE 0 END AS spent,
         CASE WHEN g.period_start = p.start THEN g.notified_percent ELSE 0 END AS notified
    FROM budgets g CROSS JOIN LATERAL (SELECT ${periodStartSql('g.period')} AS start) p
   WHERE ((g.account_id = ${account} AND g.key_id IS NULL) OR g.key_id = ${key}) AND EXISTS (SELECT 1 FROM budget_lock)
     FOR UPDATE OF g
), budget_ok AS (
  SELECT NOT EXISTS (SELECT 1 FROM budget_lim WHERE spent + ${amount} > lim) AS ok
),`;
}

/** The highest threshold (0, 50, 80, 100) that `spent` of `lim` has reached. */
function levelSql(spent: Sql, lim: Sql): string {
  return `CASE WHEN ${spent} >= ${lim} THEN 100 WHEN ${spent} * 10 >= ${lim} * 8 THEN 80 WHEN ${spent} * 2 >= ${lim} THEN 50 ELSE 0 END`;
}

/**
 * CTEs (starting with a comma) that count a hold made by the CTE named `hold` against the limits locked by
 * budgetGateSql: each limit's spend moves into the current period, the run's share is recorded for its
 * release, and a limit that crossed 50, 80 or 100 % gets its budget.threshold event (once per period) on
 * the run's event stream, delivered to `webhook` (the run's webhook, a jsonb expression) when it wants it.
 * `workflow`: the payload's workflowId (the node type of a model run). `newRun`: the run is created by this
 * statement, so it holds nothing yet (a plain insert; a later hold of a run adds to its share).
 */
export function budgetTakeSql(e: { account: Sql; run: Sql; amount: Sql; hold: string; webhook: Sql; workflow: Sql; newRun?: boolean;
  /** Several runs made by one hold (a batch): each run's share recorded apart, so each run's settle gives back its own. */
  shares?: { from: string; run: Sql; amount: Sql } }): string {
  const webhook = `(${e.webhook})`;
  const wanted = `t.notified_percent > t.was_notified`;
  return `, budget_take AS (
  UPDATE budgets g SET period_start = l.start, spent_microcredits = l.spent + ${e.amount},
         notified_percent = GREATEST(l.notified, ${levelSql(`(l.spent + ${e.amount})`, 'l.lim')})
    FROM budget_lim l, ${e.hold} h
   WHERE g.id = l.id
  RETURNING g.id, g.key_id, g.period, g.limit_microcredits, g.spent_microcredits, g.period_start, g.notified_percent, l.notified AS was_notified,
            'evt_' || substr(md5(random()::text || clock_timestamp()::text || g.id::text), 1, 24) AS event_id
), budget_held AS (
  INSERT INTO budget_holds (run_id, budget_id, period_start, amount)
  ${e.shares
    ? `SELECT ${e.shares.run}, t.id, t.period_start, ${e.shares.amount} FROM budget_take t CROSS JOIN ${e.shares.from} WHERE ${e.shares.amount} > 0`
    : `SELECT ${e.run}, t.id, t.period_start, ${e.amount} FROM budget_take t`}${e.newRun || e.shares ? '' : `
  ON CONFLICT (run_id, budget_id) DO UPDATE SET
    amount = CASE WHEN budget_holds.period_start = EXCLUDED.period_start THEN budget_holds.amount + EXCLUDED.amount ELSE EXCLUDED.amount END,
    period_start = EXCLUDED.period_start`}
), budget_event AS (
  ${eventInsertSql({
    eventId: 't.event_id', account: e.account, run: e.run, type: `'budget.threshold'`,
    // The delivered body's shape (events/types.ts EventPayload), as events/outbox.ts eventRow builds it.
    payload: `jsonb_build_object('success', true, 'type', 'budget.threshold', 'runId', ${e.run}, 'workflowId', ${e.workflow},
      'data', jsonb_build_object('percent', t.notified_percent, 'scope', CASE WHEN t.key_id IS NULL THEN 'account' ELSE 'key' END,
        'keyId', t.key_id, 'period', t.period, 'limitMicrocredits', t.limit_microcredits, 'spentMicrocredits', t.spent_microcredits,
        'periodStart', t.period_start, 'resetsAt', ${periodEndSql('t.period', 't.period_start')}),
      'metadata', ${webhook}->'metadata', 'error', NULL, 'createdAt', now())`,
  }, 'budget_take t', wanted)}
), budget_delivery AS (
  ${deliveryInsertSql({ eventId: 't.event_id', account: e.account, run: e.run, url: `${webhook}->>'url'`, headers: `${webhook}->'headers'` },
    'budget_take t', `${wanted} AND ${webhook} IS NOT NULL AND (${webhook}->'events' IS NULL OR ${webhook}->'events' ? 'budget.threshold')`)}
)`;
}

/**
 * CTEs (starting with a comma) that settle `held` of a run's hold of which `captured` was charged, after
 * the CTE `after` (the balance's settle, so the balance row is locked before any limit): the run's
 * recorded share goes down by what was settled (and is removed once all of it is), and what was not captured goes back to the limit's spend
 * when the period it was counted in is still the limit's current one.
 */
export function budgetSettleSql(run: Sql, held: Sql, captured: Sql, after: string): string {
  return `, budget_back AS (
  SELECT h.budget_id, h.period_start, LEAST(h.amount, ${held}) AS settled, LEAST(h.amount, GREATEST(${held} - ${captured}, 0)) AS back
    FROM budget_holds h, ${after}
   WHERE h.run_id = ${run} AND h.amount > 0
     FOR UPDATE OF h
), budget_unhold AS (
  UPDATE budget_holds h SET amount = h.amount - b.settled FROM budget_back b WHERE h.run_id = ${run} AND h.budget_id = b.budget_id AND h.amount > b.settled
), budget_unheld AS (
  -- A share settled in full is gone: the table holds only live holds, not one row per run ever made.
  DELETE FROM budget_holds h USING budget_back b WHERE h.run_id = ${run} AND h.budget_id = b.budget_id AND h.amount <= b.settled
), budget_give AS (
  UPDATE budgets g SET spent_microcredits = GREATEST(0, g.spent_microcredits - b.back)
    FROM budget_back b WHERE g.id = b.budget_id AND g.period_start = b.period_start AND b.back > 0
)`;
}

const VIEW_COLUMNS = `g.id, g.account_id, g.key_id, g.period, g.limit_microcredits,
  CASE WHEN g.period_start = ${periodStartSql('g.period')} THEN g.spent_microcredits ELSE 0 END AS spent_microcredits,
  ${periodStartSql('g.period')} AS period_start, ${periodEndSql('g.period', periodStartSql('g.period'))} AS resets_at`;

/** An account's own limits and the limits of the keys `$2`: spend of the current period. */
export const BUDGETS_OF = `SELECT ${VIEW_COLUMNS} FROM budgets g
  WHERE (g.account_id = $1 AND g.key_id IS NULL) OR g.key_id = ANY($2::text[])
  ORDER BY g.key_id NULLS FIRST, array_position(ARRAY['day', 'month', 'total'], g.period)`;

/** The limit (of $1 account and $2 key) that refuses $3 more microcredits now: the key's first, the nearest reset first. */
export const REFUSING_BUDGET = `SELECT * FROM (SELECT ${VIEW_COLUMNS} FROM budgets g
  WHERE (g.account_id = $1 AND g.key_id IS NULL) OR g.key_id = $2::text) v
  WHERE v.spent_microcredits + $3::bigint > v.limit_microcredits
  ORDER BY v.key_id NULLS LAST, v.resets_at NULLS LAST LIMIT 1`;

/**
 * Sets a limit ($1 account, $2 key or NULL, $3 period, $4 microcredits). The spend of the current period
 * stays: lowering a limit below it refuses further holds until the period resets.
 */
export const SET_BUDGET = `INSERT INTO budgets (account_id, key_id, period, limit_microcredits, period_start)
  VALUES ($1, $2, $3, $4, ${periodStartSql('$3::text')})
  ON CONFLICT (COALESCE(key_id, account_id), period) DO UPDATE SET limit_microcredits = EXCLUDED.limit_microcredits,
    lowered_at = CASE WHEN EXCLUDED.limit_microcredits < budgets.limit_microcredits THEN now() ELSE budgets.lowered_at END`;

export const REMOVE_BUDGET = `DELETE FROM budgets WHERE (CASE WHEN $2::text IS NULL THEN account_id = $1 AND key_id IS NULL ELSE key_id = $2::text END) AND period = $3`;

/**
 * atelier doctor's findings (ops/doctorChecks.ts): a limit whose current period's spend passed it (none may,
 * unless the limit was lowered during the period: kind 'over'), or whose spend is less than the live holds
 * counted in it (kind 'below_holds': a release gave back more than was held).
 */
export const BUDGET_SPEND_FINDINGS = `
SELECT g.id, g.account_id, g.key_id, g.period, g.limit_microcredits, g.spent_microcredits, NULL::bigint AS held, 'over' AS kind
  FROM budgets g
 WHERE g.period_start = ${periodStartSql('g.period')} AND g.spent_microcredits > g.limit_microcredits AND g.lowered_at < g.period_start
UNION ALL
SELECT g.id, g.account_id, g.key_id, g.period, g.limit_microcredits, g.spent_microcredits, sum(h.amount)::bigint, 'below_holds'
  FROM budgets g JOIN budget_holds h ON h.budget_id = g.id AND h.period_start = g.period_start
 GROUP BY g.id HAVING sum(h.amount) > g.spent_microcredits
 ORDER BY 1 LIMIT 1000`;
