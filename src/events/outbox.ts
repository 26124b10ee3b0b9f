import { literalSql, withCommit, type Queryable } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { rowOf, rowsOf } from '../db/typed.js';
import { newId } from '../ids.js';
import * as q from './queries.js';
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

/** An event's outbox row and, when the run's webhook wants this type, its delivery: what recordEvent writes. Pure. */
export interface EventRow {
  eventId: string;
  payload: EventPayload;
  delivery: { url: string; headers: Record<string, string> | null } | null;
}

export function eventRow(e: RecordEventInput): EventRow {
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
  const wanted = e.webhook && (!e.webhook.events || e.webhook.events.includes(e.type));
  return { eventId: newId('evt'), payload, delivery: wanted ? { url: e.webhook!.url, headers: e.webhook!.headers ?? null } : null };
}

/**
 * Wakes listeners once the transaction that wrote an event (and its delivery, if any) commits. For a
 * caller that wrote the rows of eventRow() in a statement of its own (`id` is the events row's id).
 */
export async function announceEvent(tx: Queryable, runId: string, id: string | number | bigint, delivery: boolean): Promise<void> {
  await notify(tx, CHANNELS.events, `${id}:${runId}`);
  if (delivery) await notify(tx, CHANNELS.deliveries);
}

/**
 * Writes an event to the outbox in the caller's transaction (so it exists exactly when the state change
 * it reports does) and wakes listeners at commit. Returns the payload as it will be delivered.
 */
export async function recordEvent(tx: Queryable, e: RecordEventInput, send: { atCommit?: boolean } = {}): Promise<EventPayload> {
  const row = eventRow(e);
  // `atCommit`: the rows go with the transaction's COMMIT, in its round trip (db/pool.ts withCommit), for a
  // caller on a hot path that reads nothing of them later in its transaction. Listeners match the NOTIFY
  // on the run (http/routes/runEvents.ts), so the event's own id stands in for the outbox id not known yet.
  if (send.atCommit && withCommit(tx, literalSql(q.INSERT_EVENT, [row.eventId, e.accountId, e.runId, e.type, JSON.stringify(row.payload)]))) {
    if (row.delivery) withCommit(tx, literalSql(q.INSERT_DELIVERY, [row.eventId, e.accountId, e.runId, row.delivery.url, row.delivery.headers === null ? null : JSON.stringify(row.delivery.headers)]));
    await announceEvent(tx, e.runId, row.eventId, row.delivery !== null);
    return row.payload;
  }
  const inserted = await rowOf<{ id: string }>(tx, q.INSERT_EVENT, [row.eventId, e.accountId, e.runId, e.type, row.payload]);
  // The webhook delivery is queued in the same transaction: an event exists exactly when its delivery does.
  if (row.delivery) {
    await tx.query(q.INSERT_DELIVERY, [row.eventId, e.accountId, e.runId, row.delivery.url, row.delivery.headers]);
  }
  await announceEvent(tx, e.runId, inserted!.id, row.delivery !== null);
  return row.payload;
}

/**
 * recordEvent for several events of one run (`e` all of the same run), in one insert, in the order given:
 * a workflow advance that served many nodes from the cache at once.
 */
export async function recordEvents(tx: Queryable, e: RecordEventInput[]): Promise<void> {
  if (e.length === 0) return;
  const rows = e.map(eventRow);
  const ids = await rowsOf<{ id: string }>(tx, q.INSERT_EVENTS, [rows.map((r) => r.eventId), e[0]!.accountId, e[0]!.runId, e.map((x) => x.type), rows.map((r) => JSON.stringify(r.payload))]);
  for (const [i, row] of rows.entries()) {
    if (row.delivery) await tx.query(q.INSERT_DELIVERY, [row.eventId, e[i]!.accountId, e[i]!.runId, row.delivery.url, row.delivery.headers]);
  }
  for (const [i, r] of ids.entries()) await announceEvent(tx, e[0]!.runId, r.id, rows.some((x) => x.delivery !== null) && i === ids.length - 1);
}

/** An outbox row as a stream reads it: its id orders the events of a run and resumes a stream (Last-Event-ID). */
export interface OutboxEvent {
  id: bigint;
  type: EventType;
  payload: EventPayload;
}

/** A run's events after outbox id `after`, in order. */
export function eventsAfter(db: Queryable, runId: string, after: bigint): Promise<OutboxEvent[]> {
  return rowsOf<OutboxEvent>(db, q.EVENTS_AFTER, [runId, after]);
}
