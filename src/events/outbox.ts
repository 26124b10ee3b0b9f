import type { Queryable } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { newId } from '../ids.js';
import type { EventPayload, EventType, WebhookConfig } from './types.js';

export interface RecordEventInput {
  accountId: string;
  runId: string;
  /** Workflow id, or the node type for a standalone run. */
  workflowId: string;
  type: EventType;
  data: Record<string, unknown>;
  error?: string | null;
  webhook: WebhookConfig | null;
}

/**
 * Writes an event to the outbox in the caller's transaction (so it exists exactly when the state change
 * it reports does) and wakes listeners at commit. Returns the payload as it will be delivered.
 */
export async function recordEvent(tx: Queryable, e: RecordEventInput): Promise<EventPayload> {
  const eventId = newId('evt');
  const payload: EventPayload = {
    success: e.type === 'run.started' || e.type === 'run.completed' || e.type === 'node.completed',
    type: e.type,
    runId: e.runId,
    workflowId: e.workflowId,
    data: e.data,
    metadata: e.webhook?.metadata ?? null,
    error: e.error ?? null,
    createdAt: new Date().toISOString(),
  };
  const r = await tx.query(
    `INSERT INTO events (event_id, account_id, run_id, type, payload) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [eventId, e.accountId, e.runId, e.type, payload],
  );
  await notify(tx, CHANNELS.events, `${r.rows[0].id}:${e.runId}`);
  // The webhook delivery is queued in the same transaction: an event exists exactly when its delivery does.
  if (e.webhook && (!e.webhook.events || e.webhook.events.includes(e.type))) {
    await tx.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, headers, status, next_attempt_at) VALUES ($1, $2, $3, $4, $5, 'pending', now())`,
      [eventId, e.accountId, e.runId, e.webhook.url, e.webhook.headers ?? null],
    );
    await notify(tx, CHANNELS.deliveries);
  }
  return payload;
}
