import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { ListDeliveriesQuery } from '../../contract/webhooks.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Delivery = Type.Object({
  id: Type.String(), eventId: Type.String(), eventType: Type.String(), runId: Type.String(), url: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(), nextAttemptAt: NullableString, lastStatusCode: Type.Union([Type.Integer(), Type.Null()]), lastError: NullableString,
  createdAt: Type.String({ format: 'date-time' }), deliveredAt: NullableString,
  attemptLog: Type.Array(Type.Object({ attempt: Type.Integer(), statusCode: Type.Union([Type.Integer(), Type.Null()]), latencyMs: Type.Union([Type.Integer(), Type.Null()]), error: NullableString, createdAt: Type.String() })),
});
const Secret = Type.Object({ secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes' }) });

/** Webhook signing secret and the delivery log (signing: src/events/signing.ts). */
export async function webhookRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['webhooks'];
  app.get('/v1/webhooks/secret', { schema: { tags, summary: 'Get the webhook signing secret', response: withErrors({ 200: Secret }) } },
    async (req) => ({ secret: await services.webhookSecrets.current(principalOf(req).accountId) }));

  app.post('/v1/webhooks/secret/rotate', {
    schema: { tags, summary: 'Rotate the webhook signing secret (the old one also signs for 24 h)', response: withErrors({ 200: Secret }) },
  }, async (req) => ({ secret: await services.webhookSecrets.rotate(principalOf(req).accountId) }));

  app.get('/v1/webhooks/deliveries', {
    schema: {
      tags, summary: 'List webhook deliveries and their attempts, newest first',
      querystring: ListDeliveriesQuery,
      response: withErrors({ 200: Type.Object({ items: Type.Array(Delivery), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }),
    },
  }, async (req) => services.deliveries.list(principalOf(req).accountId, req.query));

  app.post('/v1/webhooks/deliveries/:eventId/replay', {
    schema: {
      tags, summary: 'Send an event again now',
      params: Type.Object({ eventId: Type.String({ maxLength: 100 }) }),
      response: withErrors({ 202: Type.Object({ deliveryId: Type.String(), eventId: Type.String(), status: Type.String() }) }, [404]),
    },
  }, async (req, reply) => reply.code(202).send(await services.deliveries.replay(principalOf(req).accountId, req.params.eventId)));
}
