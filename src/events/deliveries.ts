import type { Static } from '@sinclair/typebox';
import type { ListDeliveriesQuery } from '../contract/webhooks.js';
import type { Db } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { rowOf, rowsOf } from '../db/typed.js';
import { AppError, FieldError } from '../errors.js';
import * as q from './queries.js';
import type { WebhookConfig } from './types.js';

const STATUSES = ['pending', 'delivered', 'failed'];

/** The delivery log and replays, per account. */
export class DeliveryService {
  constructor(private readonly db: Db) {}

  async list(accountId: string, f: Static<typeof ListDeliveriesQuery>) {
    if (f.status !== undefined && !STATUSES.includes(f.status)) {
      throw new FieldError('VALIDATION_ERROR', `status must be one of ${STATUSES.join(', ')}`, false, [{ path: 'status', message: 'is not a delivery status' }]);
    }
    if (f.cursor !== undefined && !/^\d{1,18}$/.test(f.cursor)) throw new FieldError('VALIDATION_ERROR', 'cursor is not one this API returned', false, [{ path: 'cursor', message: 'is invalid' }]);
    const rows = await rowsOf<DeliveryRow>(this.db, q.DELIVERY_PAGE, [accountId, f.runId ?? null, f.status ?? null, f.cursor ?? null, f.limit + 1]);
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
      const e = await rowOf<{ event_id: string; run_id: string; webhook: WebhookConfig | null }>(tx, q.EVENT_WITH_WEBHOOK, [eventId, accountId]);
      if (!e) throw new AppError('NOT_FOUND', 'event not found');
      if (!e.webhook?.url) throw new FieldError('VALIDATION_ERROR', 'the run of this event has no webhook to deliver to', false, [{ path: 'eventId', message: 'has no webhook' }]);
      const d = (await rowOf<{ id: string }>(tx, q.INSERT_DELIVERY, [e.event_id, accountId, e.run_id, e.webhook.url, e.webhook.headers ?? null]))!;
      // Deliveries of one run go out in order, so a replay waits behind the run's deliveries still retrying
      // (a backoff of minutes). "Send again now" means now: those earlier ones come due at once too.
      await tx.query(q.HURRY_EARLIER_DELIVERIES, [e.run_id, accountId, d.id]);
      await notify(tx, CHANNELS.deliveries);
      return { deliveryId: String(d.id), eventId, status: 'pending' };
    });
  }
}

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  run_id: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  attempt_log: unknown[];
}
