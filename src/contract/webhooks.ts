import { Type, type Static } from '@sinclair/typebox';

/** Event types (spec 6.2): what a webhook may subscribe to and a run's event stream carries. */
export const EVENT_TYPES = ['run.started', 'run.completed', 'run.failed', 'run.canceled', 'node.completed', 'node.failed', 'budget.threshold'] as const;

/**
 * Event types only a run's event stream carries, never stored and never sent to webhooks: a delivery is a
 * stored, signed, retried POST, and one per token would flood the receiver and the outbox with rows for
 * text the final `run.completed` / `node.completed` carries whole (src/events/outputDeltas.ts).
 */
export const STREAM_ONLY_EVENT_TYPES = ['run.output.delta'] as const;

/** `run.output.delta`: text an engine just made (an LLM's tokens). Concatenated in `index` order per node, the deltas of an execution are its output text. */
export const OutputDeltaEvent = Type.Object({
  type: Type.Literal('run.output.delta'),
  runId: Type.String(),
  nodeId: Type.Optional(Type.String({ description: 'The workflow node whose output this is (workflow runs only).' })),
  index: Type.Integer({ minimum: 0, description: 'Counts this execution\'s deltas from 0: a gap means deltas were missed (the final record still has the whole text).' }),
  delta: Type.String(),
  tokens: Type.Integer({ minimum: 0, description: 'Chunks the engine has made so far in this execution, this one included (for an LLM, about its tokens so far).' }),
});
export type OutputDeltaEvent = Static<typeof OutputDeltaEvent>;

/** What both run event streams say about streamed output (OpenAPI descriptions; docs/api.md "Streamed output"). */
export const STREAMED_OUTPUT_RULES = 'While an engine makes text (an LLM answer), the stream also carries `run.output.delta` messages whose data is `{ type: "run.output.delta", runId, nodeId?, index, delta, tokens }` (nodeId on workflow runs): concatenated per node in `index` order they are the output text, which the final record carries whole. Deltas are not stored, have no SSE `id` and are never sent to webhooks: a client that reconnects with Last-Event-ID gets the stored events after that id, then later deltas and the final record (the whole text), not the deltas it missed.';

// Request shapes of the webhook endpoints: the routes validate them and the delivery log takes their Static<> types.

/** GET /v1/webhooks/deliveries. */
export const ListDeliveriesQuery = Type.Object({
  runId: Type.Optional(Type.String({ maxLength: 100 })), status: Type.Optional(Type.String({ maxLength: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 30 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
