import type { Transport } from './transport.js';
import type { Page } from './types-common.js';

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  runId: string;
  url: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: unknown;
}

/** The account's signing secret and the delivery log. */
export class WebhooksApi {
  constructor(private readonly t: Transport) {}

  secret(): Promise<{ secret: string }> {
    return this.t.request('GET', '/v1/webhooks/secret');
  }

  /** A new secret; the old one also signs for 24 h. Not retried on 5xx: a second rotation would drop the first new secret. */
  rotateSecret(): Promise<{ secret: string }> {
    return this.t.request('POST', '/v1/webhooks/secret/rotate');
  }

  deliveries(q: { runId?: string; status?: string; cursor?: string; limit?: number } = {}): Promise<Page<Delivery>> {
    return this.t.request('GET', '/v1/webhooks/deliveries', { query: { ...q } });
  }

  /** Queues the event again now; replaying twice only sends twice, so it counts as safe to retry. */
  replay(eventId: string): Promise<{ deliveryId: string; eventId: string; status: string }> {
    return this.t.request('POST', `/v1/webhooks/deliveries/${encodeURIComponent(eventId)}/replay`, { idempotent: true });
  }
}
