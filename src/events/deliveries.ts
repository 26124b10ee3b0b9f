import type { Static } from '@sinclair/typebox';
import type { ListDeliveriesQuery } from '../contract/webhooks.js';
import type { Db } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { AppError } from '../errors.js';

const STATUSES = ['pending', 'delivered', 'failed'];

/** The delivery log and replays, per account. */
export class DeliveryService {
  constructor(private readonly db: Db) {}

  async list(accountId: string, f: Static<typeof ListDeliveriesQuery>) {
    if (f.status !== undefined && !STATUSES.includes(f.status)) {
      throw new AppError('VALIDATION_ERROR', `status must be one of ${STATUSES.join(', ')}`, { details: [{ path: 'query.status', message: 'is not a delivery status' }] });
    }
    if (f.cursor !== undefined && !/^\d{1,18}$/.test(f.cursor)) throw new AppError('VALIDATION_ERROR', 'cursor is not one this API returned', { details: [{ path: 'query.cursor', message: 'is invalid' }] });
    const rows = (await this.db.query(
      `SELECT d.*, e.type AS event_type,
              COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'statusCode', a.status_code, 'latencyMs', a.latency_ms, 'error', a.error, 'createdAt', a.created_at) ORDER BY a.id)
                          FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_log
         FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id
        WHERE d.account_id = $1 AND ($2::text IS NULL OR d.run_id = $2) AND ($3::text IS NULL OR d.status = $3) AND ($4::bigint IS NULL OR d.id < $4)
        ORDER BY d.id DESC LIMIT $5`,
      [accountId, f.runId ?? null, f.status ?? null, f.cursor ?? null, f.limit + 1],
    )).rows;
    const page = rows.slice(0, f.limit);
    return {
      items: page.map((d) => ({
        id: String(d.id), eventId: d.event_id, eventType: d.event_type, runId: d.run_id, url: d.url, status: d.status,
        attempts: d.attempts, nextAttemptAt: d.status === 'pending' ? d.next_attempt_at?.toISOString() ?? null : null,
        lastStatusCode: d.last_status_code, lastError: d.last_error, createdAt: d.created_at.toISOString(),
        deliveredAt: d.delivered_at?.toISOString() ?? null, attemptLog: d.attempt_log,
      })),
      nextCursor: rows.length > f.limit ? String(page.at(-1)!.id) : null,
    };
  }

  /** Queues the event for delivery again, now, to its run's webhook URL (whatever happened before). */
  async replay(accountId: string, eventId: string) {
    return this.db.tx(async (tx) => {
      const e = (await tx.query(`SELECT e.event_id, e.run_id, r.webhook FROM events e JOIN runs r ON r.id = e.run_id WHERE e.event_id = $1 AND e.account_id = $2`, [eventId, accountId])).rows[0];
      if (!e) throw new AppError('NOT_FOUND', 'event not found');
      if (!e.webhook?.url) throw new AppError('VALIDATION_ERROR', 'the run of this event has no webhook to deliver to', { details: [{ path: 'params.eventId', message: 'has no webhook' }] });
      const d = (await tx.query(
        `INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, headers, status, next_attempt_at) VALUES ($1, $2, $3, $4, $5, 'pending', now()) RETURNING id`,
        [e.event_id, accountId, e.run_id, e.webhook.url, e.webhook.headers ?? null],
      )).rows[0];
      // Deliveries of one run go out in order, so a replay waits behind the run's deliveries still retrying
      // (a backoff of minutes). "Send again now" means now: those earlier ones come due at once too.
      await tx.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE run_id = $1 AND account_id = $2 AND status = 'pending' AND id < $3 AND next_attempt_at > now()`, [e.run_id, accountId, d.id]);
      await notify(tx, CHANNELS.deliveries);
      return { deliveryId: String(d.id), eventId, status: 'pending' };
    });
  }
}
