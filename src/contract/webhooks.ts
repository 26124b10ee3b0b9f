import { Type } from '@sinclair/typebox';

/** Event types (spec 6.2): what a webhook may subscribe to and a run's event stream carries. */
export const EVENT_TYPES = ['run.started', 'run.completed', 'run.failed', 'run.canceled', 'node.completed', 'node.failed', 'budget.threshold'] as const;

// Request shapes of the webhook endpoints: the routes validate them and the delivery log takes their Static<> types.

/** GET /v1/webhooks/deliveries. */
export const ListDeliveriesQuery = Type.Object({
  runId: Type.Optional(Type.String({ maxLength: 100 })), status: Type.Optional(Type.String({ maxLength: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 30 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
