import { Type } from '@sinclair/typebox';

// Request shapes of the webhook endpoints: the routes validate them and the delivery log takes their Static<> types.

/** GET /v1/webhooks/deliveries. */
export const ListDeliveriesQuery = Type.Object({
  runId: Type.Optional(Type.String({ maxLength: 100 })), status: Type.Optional(Type.String({ maxLength: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 30 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
