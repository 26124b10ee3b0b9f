import type { ResponseOf } from './types-api.js';
import type { Transport } from './transport.js';
import type { Page } from './types-common.js';

/** One webhook delivery with its attempts (generated from the OpenAPI document, see types-api.ts). */
export type Delivery = ResponseOf<'webhooks.deliveries', 200>['items'][number];

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
