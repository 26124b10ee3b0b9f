export const LOCK_USER = `SELECT id FROM users WHERE id = $1 FOR UPDATE`;
export const COUNT_LIVE_KEYS = `SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`;
export const INSERT_KEY = `INSERT INTO api_keys (id, user_id, label, prefix, key_hash, rate_per_minute, rate_per_day, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`;
export const INSERT_USAGE = `INSERT INTO key_usage (key_id) VALUES ($1)`;
export const LIST_KEYS = `SELECT k.*, s.last_used_at FROM api_keys k LEFT JOIN key_usage s ON s.key_id = k.id
  WHERE k.user_id = $1 ORDER BY k.created_at, k.id`;
export const REVOKE_BY_LABEL = `UPDATE api_keys SET revoked_at = now()
  WHERE user_id = $1 AND label = $2 AND revoked_at IS NULL RETURNING *`;
export const REVOKE_BY_ID = `UPDATE api_keys SET revoked_at = now()
  WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *`;
/** Label and limits of an unrevoked key; NULL keeps the current value. Usage columns come back for the view. */
export const UPDATE_KEY = `WITH k AS (
  UPDATE api_keys SET label = COALESCE($3, label), rate_per_minute = COALESCE($4, rate_per_minute), rate_per_day = COALESCE($5, rate_per_day)
   WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *)
  SELECT k.*, s.last_used_at FROM k LEFT JOIN key_usage s ON s.key_id = k.id`;

/**
 * Authentication and both rate-limit windows in one round trip. The UPDATE admits the request only while
 * both fixed windows (UTC minute, UTC day) have room; concurrent requests on one key serialise on the
 * key_usage row and PostgreSQL re-checks the WHERE against the row each one finds, so no window is ever
 * over-admitted, however many API processes share the database. The outer SELECT reads the counters as
 * they were before this statement, which is what a refused request reports.
 * $1 = SHA-256 of the presented key.
 */
export const AUTHENTICATE = `
WITH k AS (
  SELECT k.id, k.user_id, k.key_hash, k.label, k.prefix, k.rate_per_minute, k.rate_per_day, k.expires_at, k.revoked_at,
         u.account_id AS user_account_id, u.email, o.account_id AS org_account_id,
         (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS usable,
         date_trunc('minute', now()) AS m0,
         date_trunc('day', now(), 'UTC') AS d0
    FROM api_keys k
    JOIN users u ON u.id = k.user_id
    LEFT JOIN organizations o ON o.id = u.active_org_id
   WHERE k.key_hash = $1
), upd AS (
  UPDATE key_usage s SET
      minute_count = CASE WHEN s.minute_start >= k.m0 THEN s.minute_count + 1 ELSE 1 END,
      minute_start = GREATEST(s.minute_start, k.m0),
      day_count    = CASE WHEN s.day_start >= k.d0 THEN s.day_count + 1 ELSE 1 END,
      day_start    = GREATEST(s.day_start, k.d0),
      last_used_at = now()
    FROM k
   WHERE s.key_id = k.id AND k.usable
     AND (CASE WHEN s.minute_start >= k.m0 THEN s.minute_count ELSE 0 END) < k.rate_per_minute
     AND (CASE WHEN s.day_start >= k.d0 THEN s.day_count ELSE 0 END) < k.rate_per_day
  RETURNING s.minute_count, s.minute_start, s.day_count, s.day_start
)
SELECT k.*,
       upd.minute_count IS NOT NULL AS admitted,
       COALESCE(upd.minute_count, CASE WHEN s.minute_start >= k.m0 THEN s.minute_count ELSE 0 END) AS minute_used,
       COALESCE(upd.day_count, CASE WHEN s.day_start >= k.d0 THEN s.day_count ELSE 0 END) AS day_used,
       (extract(epoch FROM k.m0) * 1000)::bigint AS minute_start_ms,
       (extract(epoch FROM k.d0) * 1000)::bigint AS day_start_ms,
       (extract(epoch FROM now()) * 1000)::bigint AS now_ms
  FROM k
  LEFT JOIN upd ON true
  LEFT JOIN key_usage s ON s.key_id = k.id`;
export const ANY_KEY = `SELECT EXISTS (SELECT 1 FROM api_keys) AS any`;
