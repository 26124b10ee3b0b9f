/**
 * Fair webhook delivery: no receiver can hold more than its share of the deliverer. Pure parts and SQL.
 *
 * - Per destination (scheme://host:port of the webhook URL) at most `perDestination` attempts are in
 *   flight across every deliverer process; claims take the oldest due delivery of each destination in
 *   turn (round-robin by rank), so one account's backlog never sits in front of another's deliveries.
 * - A circuit per destination: after CIRCUIT_THRESHOLD consecutive failures (time-outs, network errors,
 *   5xx, 429) it opens for a back-off that doubles with each further failure (5 s … 10 min); its
 *   deliveries wait without spending attempts. When it lapses one probe at a time goes out; a success
 *   closes it.
 * - The deliverer keeps a pool of attempts running and claims more as each ends, instead of waiting for
 *   a whole batch: a slow attempt holds one slot, never the others.
 */

export const CIRCUIT_THRESHOLD = 5;
const BASE_OPEN_SECONDS = 5;
const MAX_OPEN_SECONDS = 600;

/** The destination a URL's deliveries share (its origin). Same expression as DESTINATION_SQL. Pure. */
export function destinationOf(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]+/.exec(url);
  return m ? m[0] : url;
}

/** SQL of destinationOf over a column. */
export const destinationSql = (col: string) => `COALESCE(substring(${col} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'), ${col})`;

/** Seconds the circuit stays open after `failures` consecutive failures (0: closed). Pure. */
export function openSecondsAfter(failures: number): number {
  if (failures < CIRCUIT_THRESHOLD) return 0;
  return Math.min(MAX_OPEN_SECONDS, BASE_OPEN_SECONDS * 2 ** Math.min(20, failures - CIRCUIT_THRESHOLD));
}

/** Whether an attempt's outcome says the receiver is unwell (counts toward the circuit). Pure. */
export function countsAsFailure(status: number | undefined): boolean {
  return status === undefined || status >= 500 || status === 429;
}

const DEST = destinationSql('c.url');

/**
 * Claims up to $2 due deliveries for deliverer $1 (lease $3 s), at most $4 in flight per destination and
 * one while a destination's circuit is half-open; skipped while it is open. Oldest first within a
 * destination, destinations in turn. Runs after a transaction-level advisory lock, so two deliverers'
 * claims see each other's in-flight counts.
 */
export const CLAIM_FAIR = `
WITH inflight AS (
  SELECT ${destinationSql('url')} AS dest, count(*)::int AS n FROM webhook_deliveries
   WHERE status = 'pending' AND claimed_until >= now() GROUP BY 1),
due AS (
  SELECT c.id, c.next_attempt_at, ${DEST} AS dest FROM webhook_deliveries c
   WHERE c.status = 'pending' AND c.next_attempt_at <= now() AND (c.claimed_until IS NULL OR c.claimed_until < now())
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.run_id = c.run_id AND e.id < c.id AND e.status = 'pending')),
ranked AS (
  SELECT d.id, d.next_attempt_at, d.dest, row_number() OVER (PARTITION BY d.dest ORDER BY d.next_attempt_at, d.id) AS rn,
         COALESCE(i.n, 0) AS busy, COALESCE(w.failures, 0) AS failures
    FROM due d LEFT JOIN inflight i ON i.dest = d.dest LEFT JOIN webhook_endpoints w ON w.destination = d.dest
   WHERE w.open_until IS NULL OR w.open_until <= now()),
pick AS (
  SELECT id FROM ranked
   WHERE rn + busy <= CASE WHEN failures >= ${CIRCUIT_THRESHOLD} THEN 1 ELSE $4 END
   ORDER BY rn, next_attempt_at, id LIMIT $2)
UPDATE webhook_deliveries d SET claimed_by = $1, claimed_until = now() + make_interval(secs => $3), attempts = d.attempts + 1
 WHERE d.id IN (SELECT id FROM pick) AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
RETURNING d.id, d.event_id, d.account_id, d.url, d.headers, d.attempts,
          (SELECT payload FROM events WHERE event_id = d.event_id) AS payload`;

/** Serialises claims between deliverers (held to the end of the claim's transaction). */
export const CLAIM_LOCK = `SELECT pg_advisory_xact_lock(hashtext('atelier:webhook-claims'))`;

/** A failure at destination $1: count it and open the circuit for $2 seconds once over the threshold (computed from the new count). */
export const RECORD_FAILURE = `INSERT INTO webhook_endpoints (destination, failures, updated_at) VALUES ($1, 1, now())
  ON CONFLICT (destination) DO UPDATE SET failures = webhook_endpoints.failures + 1, updated_at = now()
  RETURNING failures`;
export const OPEN_CIRCUIT = `UPDATE webhook_endpoints SET open_until = now() + make_interval(secs => $2) WHERE destination = $1`;
/** The receiver answered: its circuit closes. */
export const RECORD_SUCCESS = `DELETE FROM webhook_endpoints WHERE destination = $1`;
