export const BALANCE = `SELECT posted, reserved FROM account_balances WHERE account_id = $1`;
export const INSERT_ENTRY = `INSERT INTO ledger_entries (account_id, kind, posted_delta, reserved_delta, run_id, note)
  VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`;
/**
 * Reserves only while the available balance covers it, and writes its ledger row in the same statement
 * (one round trip on the run-creation path); zero rows means "not enough credits" and then no row is written.
 * $1 account, $2 amount, $3 run.
 */
export const RESERVE_AND_RECORD = `WITH b AS (
    UPDATE account_balances SET reserved = reserved + $2 WHERE account_id = $1 AND posted - reserved >= $2 RETURNING posted, reserved
  ), e AS (
    INSERT INTO ledger_entries (account_id, kind, posted_delta, reserved_delta, run_id, note) SELECT $1, 'reserve', 0, $2, $3, NULL FROM b RETURNING id
  )
  SELECT b.posted, b.reserved FROM b`;
/** Reserves only while the available balance covers it; zero rows means "not enough credits". */
export const APPLY_RESERVE = `UPDATE account_balances SET reserved = reserved + $2
  WHERE account_id = $1 AND posted - reserved >= $2 RETURNING posted, reserved`;
export const APPLY_CAPTURE = `UPDATE account_balances SET posted = posted - $2, reserved = reserved - $2
  WHERE account_id = $1 RETURNING posted, reserved`;
export const APPLY_RELEASE = `UPDATE account_balances SET reserved = reserved - $2 WHERE account_id = $1 RETURNING posted, reserved`;
export const LEDGER_PAGE = `SELECT id, kind, posted_delta, reserved_delta, run_id, note, created_at FROM ledger_entries
  WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`;
/**
 * Balances and whether a subscription is active, for a batch of accounts ($1, each once): the balance
 * reads that arrive together share one statement (billing/service.ts).
 */
export const BALANCES_AND_SUBSCRIPTIONS = `SELECT b.account_id, b.posted, b.reserved, EXISTS (SELECT 1 FROM subscriptions s
  WHERE s.account_id = b.account_id AND s.status = 'active' AND s.current_period_end > now()) AS active
  FROM account_balances b WHERE b.account_id = ANY($1::text[])`;
/**
 * A grant that keeps the balance an exact JSON number: refused (no row) when posted + amount would pass
 * Number.MAX_SAFE_INTEGER. $1 account, $2 amount.
 */
export const APPLY_GRANT_SAFE = `UPDATE account_balances SET posted = posted + $2 WHERE account_id = $1 AND posted + $2 <= 9007199254740991 RETURNING posted, reserved`;
