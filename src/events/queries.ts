/**
 * The SQL of the outbox, the only module that writes `events`, `webhook_deliveries`, `webhook_attempts`
 * and `webhook_secrets`. The event and delivery inserts are written once, as fragments: recordEvent
 * sends them as statements of their own, and a hot one-round-trip statement (workflows/queries.ts
 * SETTLE_NODE) embeds them as CTEs.
 */

import { CIRCUIT_THRESHOLD } from './fairDelivery.js';

type Sql = string;

/** The one events insert, as INSERT … SELECT over `from` (a CTE of the statement), answering the row's id. */
export function eventInsertSql(e: { eventId: Sql; account: Sql; run: Sql; type: Sql; payload: Sql }, from?: string, where = 'true'): string {
  return `INSERT INTO events (event_id, account_id, run_id, type, payload)
  SELECT ${e.eventId}, ${e.account}, ${e.run}, ${e.type}, ${e.payload}${from ? ` FROM ${from}` : ''} WHERE ${where} RETURNING id`;
}

/** The one webhook delivery insert, due now, answering the delivery's id. */
export function deliveryInsertSql(d: { eventId: Sql; account: Sql; run: Sql; url: Sql; headers: Sql }, from?: string, where = 'true'): string {
  return `INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, headers, status, next_attempt_at)
  SELECT ${d.eventId}, ${d.account}, ${d.run}, ${d.url}, ${d.headers}, 'pending', now()${from ? ` FROM ${from}` : ''} WHERE ${where} RETURNING id`;
}

/** $1 event id, $2 account, $3 run, $4 type, $5 payload. */
export const INSERT_EVENT = eventInsertSql({ eventId: '$1::text', account: '$2::text', run: '$3::text', type: '$4::text', payload: '$5::jsonb' });
/** Several events of one run in one statement, in the order given: $1 event ids, $2 account, $3 run, $4 types, $5 payloads (JSON text). */
export const INSERT_EVENTS = eventInsertSql({ eventId: 'e.event_id', account: '$2::text', run: '$3::text', type: 'e.type', payload: 'e.payload::jsonb' },
  '(SELECT * FROM unnest($1::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(event_id, type, payload, i) ORDER BY u.i) e');
/** $1 event id, $2 account, $3 run, $4 URL, $5 headers. */
export const INSERT_DELIVERY = deliveryInsertSql({ eventId: '$1::text', account: '$2::text', run: '$3::text', url: '$4::text', headers: '$5::jsonb' });

/** The delivery log of an account, newest first, with each delivery's attempts. */
export const DELIVERY_PAGE = `SELECT d.id, d.event_id, d.run_id, d.url, d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error,
        d.created_at, d.delivered_at, e.type AS event_type,
        COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'statusCode', a.status_code, 'latencyMs', a.latency_ms, 'error', a.error, 'createdAt', a.created_at) ORDER BY a.id)
                    FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_log
   FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id
  WHERE d.account_id = $1 AND ($2::text IS NULL OR d.run_id = $2) AND ($3::text IS NULL OR d.status = $3) AND ($4::bigint IS NULL OR d.id < $4)
  ORDER BY d.id DESC LIMIT $5`;

/** An event of the account with its run's webhook (a replay). */
export const EVENT_WITH_WEBHOOK = `SELECT e.event_id, e.run_id, r.webhook FROM events e JOIN runs r ON r.id = e.run_id WHERE e.event_id = $1 AND e.account_id = $2`;

/** An event's run and the W3C traceparent it was created under (tracing/), for its deliveries' spans. */
/** EVENT_TRACE_PARENT: the run an event is of, and the trace it joins. */
export interface EventTraceRow {
  run_id: string;
  trace_parent: string | null;
}
export const EVENT_TRACE_PARENT = `SELECT r.id AS run_id, r.trace_parent FROM events e JOIN runs r ON r.id = e.run_id WHERE e.event_id = $1`;

/** A replay's earlier deliveries of the same run still waiting come due now too. $3 the replay's delivery id. */
export const HURRY_EARLIER_DELIVERIES = `UPDATE webhook_deliveries SET next_attempt_at = now()
  WHERE run_id = $1 AND account_id = $2 AND status = 'pending' AND id < $3 AND next_attempt_at > now()`;

export const ENSURE_SECRET = `INSERT INTO webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING`;
export const SECRET = `SELECT secret FROM webhook_secrets WHERE account_id = $1`;
export const ROTATE_SECRET = `UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = now() + interval '24 hours', secret = $2, rotated_at = now()
  WHERE account_id = $1 RETURNING secret`;

/** A stopping deliverer lets go of the deliveries it claimed. */
export const RELEASE_CLAIMS = `UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1 AND status = 'pending'`;

/** A run's events after the outbox id $2, in order (an event stream's pump). */
export const EVENTS_AFTER = `SELECT id, type, payload FROM events WHERE run_id = $1 AND id > $2 ORDER BY id`;

// --- delivery (deliverer.ts; the fairness rules are fairDelivery.ts) ----------------------------------------

/** An attempt's outcome, once per (delivery, attempt): recording is retried when the connection drops, and may have committed. */
export const RECORD_ATTEMPT = `INSERT INTO webhook_attempts (delivery_id, attempt, status_code, latency_ms, error)
  SELECT $1::bigint, $2::int, $3::int, $4::int, $5::text WHERE NOT EXISTS (SELECT 1 FROM webhook_attempts WHERE delivery_id = $1 AND attempt = $2)`;

/** A delivery's attempt ends ($3 its new status, $4 seconds to the retry), if deliverer $2 still holds it. */
export const FINISH_ATTEMPT = `UPDATE webhook_deliveries SET status = $3, next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $4) END,
    claimed_by = NULL, claimed_until = NULL, last_status_code = $5, last_error = $6,
    delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
  WHERE id = $1 AND claimed_by = $2`;

/** A row of CLAIMED_COLUMNS (id is bigserial, so bigint: db/pool.ts sets that parser). */
export interface ClaimedDeliveryRow {
  id: bigint;
  event_id: string;
  account_id: string;
  /** generated from account_id and url; null only if either were */
  destination: string | null;
  url: string;
  headers: Record<string, string> | null;
  attempts: number;
  payload: { type?: string; [key: string]: unknown } | null;
  secret: string | null;
  previous_secret: string | null;
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
