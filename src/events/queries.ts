/**
 * The SQL of the outbox, the only module that writes `events`, `webhook_deliveries`, `webhook_attempts`
 * and `webhook_secrets`. The event and delivery inserts are written once, as fragments: recordEvent
 * sends them as statements of their own, and a hot one-round-trip statement (workflows/queries.ts
 * SETTLE_NODE) embeds them as CTEs.
 */

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
