/**
 * The SQL of the credit ledger, the only module that writes `account_balances` and `ledger_entries`.
 *
 * ONE refusal rule for every hold: the guarded update (`posted - reserved >= amount` in its WHERE, holdSql) — no
 * row moved means "not enough credits", and nothing else is written. Not the CHECK constraint on
 * account_balances: a constraint violation aborts the whole transaction, and a workflow node priced at its
 * input is refused inside the advance's transaction, which must go on (the node fails, the run continues);
 * catching the violation there would cost a savepoint round trip per node. The CHECK stays as the last
 * line of defence and is never relied on for a refusal.
 *
 * The hot one-round-trip statements of runs/ and workflows/ are assembled from the fragments below (the
 * way queue.runJobInsert hands runs/ its job row), so the rule is written once.
 */

import { budgetGateSql, budgetSettleSql, budgetTakeSql } from './queries/budgets.js';

/** Parameter or column expressions a fragment is built from (e.g. `$2::text`, `s.held`). */
type Sql = string;

/**
 * The one hold: adds `amount` to the account's hold while its available balance covers it; no row when it
 * does not. `from`: rows to join (the statement's gate, e.g. a CTE); one hold per statement. Returns the
 * new posted and reserved.
 *
 * Written as an insert that always meets the account's row (ON CONFLICT DO UPDATE, its WHERE the refusal
 * rule) rather than an UPDATE: when the row was changed by a create that committed after this statement's
 * snapshot (two creates of one account, the second waiting for the first's lock), an UPDATE re-checks it
 * against the statement's whole plan (EvalPlanQual: every CTE set up again), where ON CONFLICT updates
 * the latest version it has locked. The row is selected from the table itself, so an account without a
 * balance row proposes nothing and nothing is inserted.
 */
export function holdSql(account: Sql, amount: Sql, from?: string, where = 'true'): string {
  return `INSERT INTO account_balances AS b (account_id)
  SELECT x.account_id FROM account_balances x${from ? `, ${from}` : ''} WHERE x.account_id = ${account} AND ${where}
  ON CONFLICT (account_id) DO UPDATE SET reserved = b.reserved + ${amount} WHERE b.posted - b.reserved >= ${amount}
  RETURNING b.posted, b.reserved`;
}

/**
 * The one settle of a hold: `captured` of the `held` amount becomes a charge (posted goes down by it),
 * the rest goes back to the available balance. Capture is `captured = held`, release is `captured = 0`.
 */
export function settleHoldSql(account: Sql, held: Sql, captured: Sql, from?: string, where = 'true'): string {
  return `UPDATE account_balances b SET posted = b.posted - ${captured}, reserved = b.reserved - ${held}${from ? ` FROM ${from}` : ''}
   WHERE b.account_id = ${account} AND ${where}
  RETURNING b.posted, b.reserved`;
}

/** The one ledger row insert, as INSERT … SELECT over `from` (a CTE of the statement) filtered by `where`. */
export function entrySql(e: { account: Sql; kind: Sql; posted: Sql; reserved: Sql; run: Sql; note: Sql }, from?: string, where = 'true'): string {
  return `INSERT INTO ledger_entries (account_id, kind, posted_delta, reserved_delta, run_id, note)
  SELECT ${e.account}, ${e.kind}, ${e.posted}, ${e.reserved}, ${e.run}, ${e.note}${from ? ` FROM ${from}` : ''} WHERE ${where}`;
}

export const BALANCE = `SELECT posted, reserved FROM account_balances WHERE account_id = $1`;
export const INSERT_ENTRY = entrySql({ account: '$1::text', kind: '$2::text', posted: '$3::bigint', reserved: '$4::bigint', run: '$5::text', note: '$6::text' });
/** A new account's balance row, at zero (accounts/ calls openBalance; only the ledger writes the table). */
export const OPEN_BALANCE = `INSERT INTO account_balances (account_id) VALUES ($1)`;

/**
 * A hold and its ledger row in one statement (one round trip on the run-creation path), checked against the
 * spend limits of the account and of the run's key (queries/budgets.ts); zero rows means "not enough
 * credits", a limit refused it, or no such account, and then no row is written.
 * $1 account, $2 amount, $3 run, $4 note, $5 key (NULL: the key the run was created with, if any).
 */
export const HOLD_AND_RECORD = `WITH run_key AS (
    SELECT COALESCE($5::text, r.key_id) AS key_id, r.webhook, COALESCE(r.workflow_id, r.node_type) AS workflow
      FROM (SELECT 1) one LEFT JOIN runs r ON r.id = $3::text
  ), ${budgetGateSql('$1::text', '(SELECT key_id FROM run_key)', '$2::bigint')} b AS (
    ${holdSql('$1::text', '$2::bigint', 'budget_ok', 'budget_ok.ok')}
  ), e AS (
    ${entrySql({ account: '$1::text', kind: `'reserve'`, posted: '0', reserved: '$2::bigint', run: '$3::text', note: '$4::text' }, 'b')}
  )${budgetTakeSql({ account: '$1::text', run: '$3::text', amount: '$2::bigint', hold: 'b', webhook: '(SELECT webhook FROM run_key)', workflow: '(SELECT workflow FROM run_key)' })}
  SELECT b.posted, b.reserved FROM b`;

/**
 * A hold's settle and its ledger row in one statement, with what it gives back to the spend limits.
 * $1 account, $2 held, $3 captured, $4 run, $5 note, $6 kind.
 */
export const SETTLE_AND_RECORD = `WITH b AS (
    ${settleHoldSql('$1::text', '$2::bigint', '$3::bigint')}
  ), e AS (
    ${entrySql({ account: '$1::text', kind: '$6::text', posted: '-$3::bigint', reserved: '-$2::bigint', run: '$4::text', note: '$5::text' }, 'b')}
  )${budgetSettleSql('$4::text', '$2::bigint', '$3::bigint', 'b')}
  SELECT b.posted, b.reserved FROM b`;

/** The key a run was created with (runs/ owns the column; read here to name a refusing key limit). */
export const RUN_KEY = `SELECT key_id FROM runs WHERE id = $1`;

export const LEDGER_PAGE = `SELECT id, kind, posted_delta, reserved_delta, run_id, note, created_at FROM ledger_entries
  WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`;

/**
 * A grant that keeps the balance an exact JSON number: refused (no row) when posted + amount would pass
 * Number.MAX_SAFE_INTEGER. $1 account, $2 amount.
 */
export const APPLY_GRANT_SAFE = `UPDATE account_balances SET posted = posted + $2 WHERE account_id = $1 AND posted + $2 <= 9007199254740991 RETURNING posted, reserved`;
