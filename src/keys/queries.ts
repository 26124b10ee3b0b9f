import type { Queryable } from '../db/pool.js';
import { rowOf, rowsOf } from '../db/typed.js';
import { LEASE_TTL_MS } from './quotaLease.js';
import type { KeyRole } from './scopes.js';

/** A row of api_keys as `RETURNING *` answers it. */
export interface ApiKeyRow {
  id: string;
  user_id: string;
  label: string;
  prefix: string;
  key_hash: Buffer;
  rate_per_minute: number;
  rate_per_day: number;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  max_priority: number;
  role: KeyRole;
  /** null: any */
  allow_node_types: string[] | null;
  allow_categories: string[] | null;
  allow_providers: string[] | null;
}

/** LIST_KEYS and UPDATE_KEY: the key and when it was last used. */
export type KeyInfoRow = ApiKeyRow & { last_used_at: Date | null };

/** LOOKUP_KEY: the key's limits and scope, and whose account it acts for. */
export type KeyLookupRow = Pick<ApiKeyRow, 'id' | 'user_id' | 'key_hash' | 'rate_per_minute' | 'rate_per_day' | 'expires_at' | 'role' | 'allow_node_types' | 'allow_categories' | 'allow_providers'>
  & { user_account_id: string; email: string; org_account_id: string | null };

export const LOCK_USER = `SELECT id FROM users WHERE id = $1 FOR UPDATE`;
export const COUNT_LIVE_KEYS = `SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`;
export const INSERT_KEY = `INSERT INTO api_keys (id, user_id, label, prefix, key_hash, rate_per_minute, rate_per_day, expires_at, role, allow_node_types, allow_categories, allow_providers)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`;
export const INSERT_USAGE = `WITH w AS (INSERT INTO key_windows (key_id) VALUES ($1)) INSERT INTO key_usage (key_id) VALUES ($1)`;
/** last_used_at: the exact one while the windows table has it, else the durable one (refreshed once a minute). */
export const LIST_KEYS = `SELECT k.*, GREATEST(w.last_used_at, s.last_used_at) AS last_used_at FROM api_keys k
  LEFT JOIN key_usage s ON s.key_id = k.id LEFT JOIN key_windows w ON w.key_id = k.id
  WHERE k.user_id = $1 ORDER BY k.created_at, k.id`;
export const REVOKE_BY_LABEL = `UPDATE api_keys SET revoked_at = now()
  WHERE user_id = $1 AND label = $2 AND revoked_at IS NULL RETURNING *`;
export const REVOKE_BY_ID = `UPDATE api_keys SET revoked_at = now()
  WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *`;
/**
 * Label, limits and scope of an unrevoked key; NULL keeps the current value, except the allow-lists, which
 * $7..$9 set when their flag $10..$12 is true (NULL there means "any model"). Usage columns come back for the view.
 */
export const UPDATE_KEY = `WITH k AS (
  UPDATE api_keys SET label = COALESCE($3, label), rate_per_minute = COALESCE($4, rate_per_minute), rate_per_day = COALESCE($5, rate_per_day),
         role = COALESCE($6, role),
         allow_node_types = CASE WHEN $10::boolean THEN $7::text[] ELSE allow_node_types END,
         allow_categories = CASE WHEN $11::boolean THEN $8::text[] ELSE allow_categories END,
         allow_providers = CASE WHEN $12::boolean THEN $9::text[] ELSE allow_providers END
   WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *)
  SELECT k.*, GREATEST(w.last_used_at, s.last_used_at) AS last_used_at FROM k
  LEFT JOIN key_usage s ON s.key_id = k.id LEFT JOIN key_windows w ON w.key_id = k.id`;

/**
 * A usable-or-expired key's record by the SHA-256 of the presented key: what an API process caches (keys/cache.ts).
 * Revoked keys are not returned. Expiry is left to the caller, which checks it on every request.
 */
export const LOOKUP_KEY = `
SELECT k.id, k.user_id, k.key_hash, k.rate_per_minute, k.rate_per_day, k.expires_at, k.role, k.allow_node_types, k.allow_categories, k.allow_providers,
       u.account_id AS user_account_id, u.email, o.account_id AS org_account_id
  FROM api_keys k
  JOIN users u ON u.id = k.user_id
  LEFT JOIN organizations o ON o.id = u.active_org_id
 WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

/**
 * Counts a batch of requests against their keys' two fixed windows (UTC minute, UTC day) in one statement.
 * Per key (each once): $1 id, $2 how many requests it brought, $3 how many units more it would like as a
 * lease (keys/quotaLease.ts), $4/$5 its per-minute/per-day limits, $6 unused units of an ended lease to give
 * back, $7/$8 the minute and day window starts (epoch ms) that lease was counted in. Each key is admitted
 * min(wanted, room left in either window) requests, then leased at most a quarter of what room is left, so
 * leases shrink as a window fills and the last units are always counted one request at a time.
 *
 * Exact across processes: the window rows are locked in key order (so two batches never deadlock) and the
 * locked rows are the latest committed ones, so concurrent batches of any process serialise per key and
 * no window is over-admitted; leased units count as used until given back. A window never moves back
 * (GREATEST), so a statement whose now() fell just before a minute boundary that another already crossed
 * counts into the newer window. A give-back only applies to the windows its lease was counted in.
 * lease_until is when the latest lease of the key ends: a process refused before then may be refused only
 * because units are out on lease, and asks again after it (keys/rateCounter.ts).
 *
 * key_windows is UNLOGGED: this statement writes no WAL, so its commit does not wait for a disk flush;
 * only the durable key_usage.last_used_at, refreshed at most once a minute per key, does. last_used_at is
 * exact to within a lease's lifetime.
 * A key whose window row is missing (new, or PostgreSQL restarted after a crash) gets it inserted here and
 * comes back with admitted NULL: the caller counts it again in its next batch.
 */
/**
 * What COUNT_REQUESTS answers for each key asked about; all but key_id are null for a key that had no window
 * row (the int8 ones bigint: db/pool.ts sets that parser).
 */
export interface CountedRequestsRow {
  key_id: string;
  admitted: number | null;
  leased: number | null;
  minute_used: number | null;
  day_used: number | null;
  minute_start_ms: bigint | null;
  day_start_ms: bigint | null;
  now_ms: bigint | null;
  lease_until_ms: bigint | null;
}

export const COUNT_REQUESTS = `
WITH req AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::bigint[], $8::bigint[])
    AS r(key_id, wanted, extra, per_minute, per_day, back, back_minute_ms, back_day_ms)
), t AS (
  SELECT now() AS at, date_trunc('minute', now()) AS m0, date_trunc('day', now(), 'UTC') AS d0
), cur AS (
  SELECT w.key_id, w.lease_until,
         GREATEST(w.minute_start, t.m0) AS minute_start,
         CASE WHEN w.minute_start >= t.m0 THEN w.minute_count ELSE 0 END AS minute_count,
         GREATEST(w.day_start, t.d0) AS day_start,
         CASE WHEN w.day_start >= t.d0 THEN w.day_count ELSE 0 END AS day_count
    FROM key_windows w CROSS JOIN t
   WHERE w.key_id = ANY($1::text[])
   ORDER BY w.key_id
     FOR UPDATE OF w
), net AS (
  SELECT cur.key_id, cur.lease_until, cur.minute_start, cur.day_start, req.wanted, req.extra, req.per_minute, req.per_day, req.back,
         GREATEST(0, cur.minute_count - CASE WHEN req.back_minute_ms = (extract(epoch FROM cur.minute_start) * 1000)::bigint THEN req.back ELSE 0 END) AS minute_used,
         GREATEST(0, cur.day_count - CASE WHEN req.back_day_ms = (extract(epoch FROM cur.day_start) * 1000)::bigint THEN req.back ELSE 0 END) AS day_used
    FROM cur JOIN req USING (key_id)
), granted AS (
  SELECT net.*, LEAST(wanted, GREATEST(0, per_minute - minute_used), GREATEST(0, per_day - day_used)) AS admitted
    FROM net
), leased AS (
  SELECT granted.*, LEAST(extra, GREATEST(0, LEAST(per_minute - minute_used, per_day - day_used) - admitted) / 4) AS leased
    FROM granted
), counted AS (
  UPDATE key_windows w SET minute_start = l.minute_start, minute_count = l.minute_used + l.admitted + l.leased,
         day_start = l.day_start, day_count = l.day_used + l.admitted + l.leased,
         last_used_at = CASE WHEN l.admitted > 0 THEN t.at ELSE w.last_used_at END,
         lease_until = CASE WHEN l.leased > 0 THEN GREATEST(w.lease_until, t.at + interval '${LEASE_TTL_MS} milliseconds') ELSE w.lease_until END
    FROM leased l CROSS JOIN t
   WHERE w.key_id = l.key_id AND (l.admitted > 0 OR l.leased > 0 OR l.back > 0)
  RETURNING w.key_id, w.lease_until
), touched AS (
  UPDATE key_usage s SET last_used_at = t.at
    FROM leased l CROSS JOIN t
   WHERE s.key_id = l.key_id AND l.admitted > 0 AND (s.last_used_at IS NULL OR s.last_used_at < t.at - interval '1 minute')
), missing AS (
  INSERT INTO key_windows (key_id)
  SELECT r.key_id FROM req r JOIN api_keys k ON k.id = r.key_id WHERE NOT EXISTS (SELECT 1 FROM cur WHERE cur.key_id = r.key_id)
  ON CONFLICT DO NOTHING
)
SELECT r.key_id, l.admitted, l.leased, l.minute_used, l.day_used,
       (extract(epoch FROM l.minute_start) * 1000)::bigint AS minute_start_ms,
       (extract(epoch FROM l.day_start) * 1000)::bigint AS day_start_ms,
       (extract(epoch FROM t.at) * 1000)::bigint AS now_ms,
       (extract(epoch FROM COALESCE(c.lease_until, l.lease_until)) * 1000)::bigint AS lease_until_ms
  FROM req r CROSS JOIN t LEFT JOIN leased l USING (key_id) LEFT JOIN counted c USING (key_id)`;
export const ANY_KEY = `SELECT EXISTS (SELECT 1 FROM api_keys) AS any`;

// Open event streams (keys/streams.ts): a row per open SSE stream, so the cap per key holds across processes.
/** How long a stream's row outlives its process's last renewal (a crashed process's rows lapse). */
const ALIVE_SECONDS = 30;

const OPEN = `INSERT INTO open_streams (id, key_id, holder, alive_until) VALUES ($1, $2, $3, now() + make_interval(secs => ${ALIVE_SECONDS}))`;
const COUNT = `SELECT count(*)::int AS n FROM open_streams WHERE key_id = $1 AND alive_until > now()`;
const LOCK = `SELECT pg_advisory_xact_lock(hashtext('atelier:streams:' || $1))`;
const PRUNE = `DELETE FROM open_streams WHERE key_id = $1 AND alive_until <= now()`;
const CLOSE = `DELETE FROM open_streams WHERE id = $1`;
/** Renews this process's rows and returns which of the given keys (or web sessions) may still stream. */
const RENEW_AND_CHECK = `WITH renew AS (UPDATE open_streams SET alive_until = now() + make_interval(secs => ${ALIVE_SECONDS}) WHERE holder = $1)
  SELECT id FROM api_keys WHERE id = ANY($2) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
  UNION ALL SELECT id FROM web_sessions WHERE id = ANY($2) AND expires_at > now()`;

/** Serialises the opens of one key's (or web session's) streams until the transaction ends. */
export async function lockStreamsOf(q: Queryable, keyId: string): Promise<void> {
  await q.query(LOCK, [keyId]);
}

/** Drops the rows of streams whose process stopped renewing them. */
export async function pruneStreamsOf(q: Queryable, keyId: string): Promise<void> {
  await q.query(PRUNE, [keyId]);
}

export async function countLiveStreams(q: Queryable, keyId: string): Promise<number> {
  return (await rowOf<{ n: number }>(q, COUNT, [keyId]))!.n;
}

export async function openStream(q: Queryable, id: string, keyId: string, holder: string): Promise<void> {
  await q.query(OPEN, [id, keyId, holder]);
}

export async function closeStream(q: Queryable, id: string): Promise<void> {
  await q.query(CLOSE, [id]);
}

/** Renews `holder`'s rows; returns those of `keyIds` (API key or web session ids) that are still valid. */
export async function renewAndCheckStreams(q: Queryable, holder: string, keyIds: string[]): Promise<string[]> {
  return (await rowsOf<{ id: string }>(q, RENEW_AND_CHECK, [holder, keyIds])).map((r) => r.id);
}
