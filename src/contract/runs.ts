import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from './webhooks.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const EventTypeSchema = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { $id: 'EventType' });

export const WebhookConfigSchema = Type.Object({
  url: Type.String({ description: 'Receiver address (http or https)' }),
  events: Type.Optional(Type.Array(Type.String(), { description: 'Event types to receive; omitted: every event the run type sends' })),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Echoed in every event (at most 4 KB)' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Extra headers on each delivery' })),
}, { $id: 'WebhookConfig', additionalProperties: true });

export const FileViewSchema = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'Signed URL; works without an API key until it expires' }),
  contentType: Type.String(),
  bytes: Type.Integer(),
  filename: Type.Optional(Type.String()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
  durationSeconds: Type.Optional(Type.Number()),
}, { $id: 'FileView' });

const RUN_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELED'] as const;
export const RunStatus = Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)), { description: 'QUEUED → RUNNING → COMPLETED, FAILED or CANCELED' });
const Iso = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A routed run's or node's `route` (execution/routing.ts RouteReport): which route served it and why each before it did not. */
const routeReport = (description: string) => Type.Object({
  served: Nullable(Type.String({ description: 'The route (atelier.models.json "routes") that served the run; null when none could', examples: ['backup'] })),
  skipped: Type.Array(Type.Object({
    name: Type.String({ examples: ['primary'] }),
    reason: Type.String({ description: 'Why the route did not serve it: unavailable here, its circuit open, or its provider failed before taking the work', examples: ['circuit open until 2026-01-01T00:00:00.000Z after repeated provider failures'] }),
  })),
}, { description });

export const NodeRunSchema = Type.Object({
  id: Type.String({ examples: ['run_01JD8Y3Q6W5B2M1X9K7T4C0E2F'] }),
  nodeType: Type.String({ examples: ['espeak_tts'] }),
  subModelId: Nullable(Type.String({ description: 'The sub-model of a multi-mode model; null for a model with one mode' })),
  status: RunStatus,
  input: Type.Object({}, { additionalProperties: true }),
  output: Nullable(Type.Object({}, { additionalProperties: true, description: 'Keyed by the mode’s declared outputs (schema outputs[].name): result (file URLs) plus resultMetadata (per image: size, width, height, modelId, mimeType, mediaType) for image models; output (text) for text models; the hosted keys for the hosted utilities (image_url, video_url, audio_url; text and content_url)' })),
  files: Type.Array(Type.Ref(FileViewSchema)),
  error: Nullable(Type.String()),
  errorCode: Type.Optional(Type.String({ description: 'A named run failure: OUTPUT_TOO_LARGE, INPUT_TOO_LARGE (an input over a size cap found when the run reads it), ENGINE_CRASHED, ENGINE_OUT_OF_MEMORY, ENGINE_TIMEOUT; absent otherwise' })),
  userMessage: Nullable(Type.String()),
  creditUsed: Type.Integer({ description: 'Microcredits charged' }),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced and reserved at creation' }),
  progress: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  progressMessage: Nullable(Type.String()),
  createdAt: Iso(),
  startedAt: Nullable(Iso()),
  finishedAt: Nullable(Iso()),
  route: Type.Optional(routeReport('Models with routes only, once the run has ended on a route: which served it (its price is creditUsed; estimatedCredits held the dearest route) and why each route before it did not')),
  priority: Type.Optional(Type.Integer({ minimum: -10, maximum: 10, description: 'The priority it was queued at (0 normal; higher starts first)' })),
  batchId: Type.Optional(Type.String({ description: 'The batch it belongs to (POST /v1/nodes/{nodeType}/batch), if any' })),
  queuePosition: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'While QUEUED: how many queued jobs start before it (0: next); refreshed about every second; null when not known' }))),
  estimatedStartAt: Type.Optional(Nullable(Iso('While QUEUED: when it may start at the queue\'s recent pace; null until that pace is known'))),
}, { $id: 'NodeRun' });

/** The first answer to a run create: the run is queued and its cost reserved. */
export const RunCreatedSchema = Type.Object({
  runId: Type.String({ examples: ['run_01JD8Y3Q6W5B2M1X9K7T4C0E2F'] }),
  status: Type.Literal('QUEUED'),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced and reserved' }),
}, { $id: 'RunCreated' });

const RunIdField = Type.Object({ runId: Type.String({ description: 'Same as id' }) });
/** A create answered with the run record (Prefer: wait=N): the record plus runId. */
export const NodeRunCreated = Type.Intersect([Type.Ref(NodeRunSchema), RunIdField]);

export const WorkflowNodeRunSchema = Type.Object({
  nodeId: Type.String(),
  nodeType: Type.String(),
  subModelId: Nullable(Type.String({ description: 'The sub-model of a multi-mode model; null for a model with one mode' })),
  status: Type.Union(['PENDING', 'QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED'].map((s) => Type.Literal(s)), { description: 'SKIPPED: an upstream node failed' }),
  cached: Type.Boolean({ description: 'Served from the node cache at no cost' }),
  input: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'Left out with inDetails=false' }))),
  output: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'By output handle; file outputs are signed URLs. Left out with inDetails=false' }))),
  logs: Type.Array(Type.Object({ at: Iso(), progress: Type.Number(), message: Nullable(Type.String()) }, { additionalProperties: true })),
  error: Nullable(Type.String()),
  errorCode: Type.Optional(Type.String({ description: 'A named node failure (absent otherwise): INSUFFICIENT_CREDITS (its price at the input it would have run with exceeds the balance), BUDGET_EXCEEDED (it would pass a spend limit of the account or of the key that created the run), OUTPUT_TOO_LARGE, INPUT_TOO_LARGE, ENGINE_CRASHED, ENGINE_OUT_OF_MEMORY, ENGINE_TIMEOUT' })),
  startedAt: Nullable(Iso()),
  finishedAt: Nullable(Iso()),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced for this node' }),
  actualCredits: Type.Integer({ description: 'Microcredits charged for this node (0 when cached)' }),
  creditUsed: Type.Integer({ description: 'The node\'s charge: the price of the model at the input it actually ran with (values arriving along edges included), the same figure a standalone run of that input costs — for a model with routes, the price of the route that served it; 0 when cached, skipped or failed' }),
  route: Type.Optional(routeReport('Nodes of models with routes only, once the node has ended on a route: which served it (its price is creditUsed; estimatedCredits held the dearest route) and why each route before it did not')),
}, { $id: 'WorkflowNodeRun' });

/**
 * A workflow run's view. Registered with the app's shared schemas (app/app.ts), not inside its routes'
 * plugin: a plugin that adds a schema gets a validator compiler of its own, Fastify's default, and its
 * routes silently lost the service's validation rules (strict bodies, no Infinity through a query).
 */
export const WorkflowRun = Type.Object({
  id: Type.String({ examples: ['run_01JD8Y3Q6W5B2M1X9K7T4C0E2F'] }),
  status: RunStatus,
  workflowId: Type.String(),
  triggerRunId: Type.Null(),
  createdAt: Iso(),
  startedAt: Nullable(Iso()),
  finishedAt: Nullable(Iso()),
  error: Nullable(Type.String()),
  context: Type.Null(),
  outputs: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { description: 'What reached the Response node, by source node id, then output handle; files are signed URLs' }),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced and reserved at creation' }),
  actualCredits: Type.Integer({ description: 'Microcredits charged so far (final once the run ended)' }),
  priority: Type.Optional(Type.Integer({ minimum: -10, maximum: 10, description: 'The priority it was queued at, it and each of its node jobs (0 normal; higher starts first)' })),
  nodeRuns: Type.Array(Type.Ref(WorkflowNodeRunSchema)),
}, { $id: 'WorkflowRun' });

export const WorkflowRunCreated = Type.Intersect([Type.Ref(WorkflowRun), RunIdField]);

/** The body of every webhook delivery and the `data` of every SSE message of a run (spec 6.3). */
export const WebhookEventSchema = Type.Object({
  success: Type.Boolean({ description: 'false for run.failed, run.canceled and node.failed' }),
  type: Type.Ref(EventTypeSchema),
  runId: Type.String(),
  workflowId: Nullable(Type.String({ description: 'The workflow of a workflow run' })),
  data: Type.Object({}, { additionalProperties: true, description: 'run.completed of a model run: the run record\'s fields; of a workflow run: { status, completedNodes, failedNodes, outputs, actualCredits } (file outputs as signed URLs); node.completed: { nodeId, nodeType, status, cached, output }' }),
  metadata: Nullable(Type.Object({}, { additionalProperties: true, description: 'The webhook\'s metadata, echoed' })),
  error: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'WebhookEvent' });

// Request shapes: the routes validate them and the run services take their Static<> types.

/** A create's `priority` (keys/priority.ts), for model and workflow runs alike. */
const CREATE_PRIORITY = 'Queue priority: 0 normal (default); lower waits behind normal runs; higher, up to the key\'s ceiling set by the operator, starts before them (403 PRIORITY_NOT_ALLOWED above it)';

/** POST /v1/nodes/{nodeType}/run. */
export const CreateNodeRunBody = Type.Object({
  subModelId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  input: Type.Optional(Type.Object({}, { additionalProperties: true })),
  webhook: Type.Optional(Type.Union([Type.Ref(WebhookConfigSchema), Type.Null()])),
  priority: Type.Optional(Type.Integer({ minimum: -10, maximum: 10, description: CREATE_PRIORITY })),
}, { additionalProperties: false });

/** POST /v1/runs. */
export const CreateWorkflowRunBody = Type.Object({
  workflowId: Type.String({ minLength: 1, maxLength: 100, description: 'A workflow id or a system workflow slug' }),
  values: Type.Optional(Type.Object({}, { additionalProperties: true })),
  webhook: Type.Optional(Type.Union([Type.Ref(WebhookConfigSchema), Type.Null()])),
  priority: Type.Optional(Type.Integer({ minimum: -10, maximum: 10, description: `${CREATE_PRIORITY}; every node job of the run is queued at it` })),
}, { additionalProperties: false });

/** GET /v1/runs. */
export const ListWorkflowRunsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 500 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  status: Type.Optional(Type.String({ maxLength: 20 })), workflowId: Type.Optional(Type.String({ maxLength: 100 })),
});
