/**
 * Fair webhook delivery: no receiver can hold more than its share of the deliverer. Pure parts and SQL.
 *
 * - A destination is one account's origin (the account and scheme://host:port of the webhook URL): tenants
 *   sharing a receiver host (an automation platform, a company gateway) never share a circuit, a probe or
 *   a share, so one tenant's failing path cannot hold back another's deliveries (issue 26, finding 2).
 * - Per destination at most `perDestination` attempts are in flight across every deliverer process;
 *   claims take the oldest due delivery of each destination in turn (round-robin by rank), so one
 *   account's backlog never sits in front of another's deliveries.
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

/** The origin (scheme://host:port) of a webhook URL, or the URL itself when it has none. Pure. */
export function originOf(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]+/.exec(url);
  return m ? m[0] : url;
}

/**
 * The destination an account's deliveries to a URL share: the account and the URL's origin; the same
 * expression as the generated column webhook_deliveries.destination (migration 026). Pure.
 */
export function destinationOf(accountId: string, url: string): string {
  return `${accountId} ${originOf(url)}`;
}


/** Seconds the circuit stays open after `failures` consecutive failures (0: closed). Pure. */
export function openSecondsAfter(failures: number): number {
  if (failures < CIRCUIT_THRESHOLD) return 0;
  return Math.min(MAX_OPEN_SECONDS, BASE_OPEN_SECONDS * 2 ** Math.min(20, failures - CIRCUIT_THRESHOLD));
}

/** Whether an attempt's outcome says the receiver is unwell (counts toward the circuit). Pure. */
export function countsAsFailure(status: number | undefined): boolean {
  return status === undefined || status >= 500 || status === 429;
}

/**
 * What a claimed delivery comes back with: the attempt's body and the account's signing secrets (secrets.ts
 * signingOf), so sending it needs no further round trip.
 */
const CLAIMED_COLUMNS = `d.id, d.event_id, d.account_id, d.destination, d.url, d.headers, d.attempts,
          (SELECT payload FROM events WHERE event_id = d.event_id) AS payload,
          (SELECT s.secret FROM webhook_secrets s WHERE s.account_id = d.account_id) AS secret,
          (SELECT CASE WHEN s.previous_expires_at > now() THEN s.previous_secret END FROM webhook_secrets s WHERE s.account_id = d.account_id) AS previous_secret`;

/**
 * The condition a claimable delivery `x` meets, shared by CLAIM_FAIR and RECORD_DELIVERED_AND_HAND_ON so
 * both take the same candidates: of destination `destination`, pending, due, not held by a live claim, and
 * the next of its run (a run's events go out in order). `settled`: a delivery the same statement is
 * marking delivered, which counts as no longer pending.
 */
function dueAt(destination: string, settled?: string): string {
  const not = (alias: string) => (settled ? ` AND ${alias}.id <> ${settled}` : '');
  return `x.destination = ${destination} AND x.status = 'pending' AND x.next_attempt_at <= now()${not('x')}
         AND (x.claimed_until IS NULL OR x.claimed_until < now())
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.run_id = x.run_id AND e.id < x.id AND e.status = 'pending'${not('e')})`;
}

/**
 * Claims up to $2 due deliveries for deliverer $1 (lease $3 s), at most $4 in flight per destination and
 * one while a destination's circuit is half-open; skipped while it is open. Oldest first within a
 * destination, destinations in turn. The destinations with pending deliveries are found by a skip scan
 * of webhook_deliveries_destination_due (one index probe per destination), and each one's candidates by
 * the same index, so a claim costs little however deep one receiver's backlog is. Runs after a
 * transaction-level advisory lock, so deliverers' claims see each other's in-flight counts.
 */
export const CLAIM_FAIR = `
WITH RECURSIVE dests AS (
  (SELECT destination FROM webhook_deliveries WHERE status = 'pending' ORDER BY destination LIMIT 1)
  UNION ALL
  SELECT (SELECT w.destination FROM webhook_deliveries w WHERE w.status = 'pending' AND w.destination > d.destination ORDER BY w.destination LIMIT 1)
    FROM dests d WHERE d.destination IS NOT NULL),
room AS (
  SELECT d.destination,
         CASE WHEN COALESCE(e.failures, 0) >= ${CIRCUIT_THRESHOLD} THEN 1 ELSE $4 END
           - (SELECT count(*) FROM webhook_deliveries f WHERE f.destination = d.destination AND f.status = 'pending' AND f.claimed_until >= now())::int AS free
    FROM dests d LEFT JOIN webhook_endpoints e ON e.destination = d.destination
   WHERE d.destination IS NOT NULL AND (e.open_until IS NULL OR e.open_until <= now())),
ranked AS (
  SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY r.destination ORDER BY c.next_attempt_at, c.id) AS rn
    FROM room r, LATERAL (
      SELECT x.id, x.next_attempt_at FROM webhook_deliveries x
       WHERE ${dueAt('r.destination')}
       ORDER BY x.next_attempt_at, x.id LIMIT greatest(r.free, 0)) c),
pick AS (SELECT id FROM ranked ORDER BY rn, next_attempt_at, id LIMIT $2)
UPDATE webhook_deliveries d SET claimed_by = $1, claimed_until = now() + make_interval(secs => $3), attempts = d.attempts + 1
 WHERE d.id IN (SELECT id FROM pick) AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
RETURNING ${CLAIMED_COLUMNS}`;

/** Serialises claims between deliverers (held to the end of the claim's transaction). */
export const CLAIM_LOCK = `SELECT pg_advisory_xact_lock(hashtext('atelier:webhook-claims'))`;

/** A failure at destination $1: count it and open the circuit for $2 seconds once over the threshold (computed from the new count). */
export const RECORD_FAILURE = `INSERT INTO webhook_endpoints (destination, failures, updated_at) VALUES ($1, 1, now())
  ON CONFLICT (destination) DO UPDATE SET failures = webhook_endpoints.failures + 1, updated_at = now()
  RETURNING failures`;
export const OPEN_CIRCUIT = `UPDATE webhook_endpoints SET open_until = now() + make_interval(secs => $2) WHERE destination = $1`;
/** The receiver answered: its circuit closes. */
export const RECORD_SUCCESS = `DELETE FROM webhook_endpoints WHERE destination = $1`;

/**
 * A delivered attempt, recorded in one statement, which also hands its slot on: $1 delivery, $2 deliverer,
 * $3 attempt number, $4 status code, $5 latency ms, $6 its destination, $7 whether to hand on, $8 claim
 * seconds. The attempt row (once per delivery and attempt: recording is retried when the connection
 * drops), the delivery marked delivered if this deliverer still holds it, the destination's circuit closed
 * (the receiver answered well), and, when $7, the destination's next due delivery claimed by the same
 * deliverer in the same statement. The hand-on keeps the destination's count of attempts in flight as it
 * was (one ends, one starts), so it needs no claim lock; it takes the same candidates (dueAt), in the same
 * order, as CLAIM_FAIR, counting the delivery just recorded as no longer pending.
 */
export const RECORD_DELIVERED_AND_HAND_ON = `
WITH attempt AS (
  INSERT INTO webhook_attempts (delivery_id, attempt, status_code, latency_ms, error)
  SELECT $1::bigint, $3::int, $4::int, $5::int, NULL
   WHERE NOT EXISTS (SELECT 1 FROM webhook_attempts WHERE delivery_id = $1 AND attempt = $3)
), finished AS (
  UPDATE webhook_deliveries SET status = 'delivered', next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL,
         last_status_code = $4, last_error = NULL, delivered_at = now()
   WHERE id = $1 AND claimed_by = $2
  RETURNING id
), healthy AS (
  DELETE FROM webhook_endpoints WHERE destination = $6
)
UPDATE webhook_deliveries d SET claimed_by = $2, claimed_until = now() + make_interval(secs => $8), attempts = d.attempts + 1
 WHERE $7 AND EXISTS (SELECT 1 FROM finished)
   AND d.id = (
     SELECT x.id FROM webhook_deliveries x
      WHERE ${dueAt('$6', '$1')}
      ORDER BY x.next_attempt_at, x.id LIMIT 1
        FOR UPDATE SKIP LOCKED)
   AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
RETURNING ${CLAIMED_COLUMNS}`;
