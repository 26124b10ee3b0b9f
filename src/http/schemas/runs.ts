import { Type } from '@sinclair/typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

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

export const NodeRunSchema = Type.Object({
  runId: Type.Optional(Type.String({ description: 'Same as id; present in create answers' })),
  id: Type.String(),
  nodeType: Type.String(),
  subModelId: Nullable(Type.String()),
  status: Type.Union(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELED'].map((s) => Type.Literal(s))),
  input: Type.Object({}, { additionalProperties: true }),
  output: Nullable(Type.Object({}, { additionalProperties: true, description: 'result: file URLs (media models); output: text (text models)' })),
  files: Type.Array(Type.Ref(FileViewSchema)),
  error: Nullable(Type.String()),
  errorCode: Type.Optional(Nullable(Type.String({ description: 'A named run failure: OUTPUT_TOO_LARGE, ENGINE_CRASHED, ENGINE_TIMEOUT' }))),
  userMessage: Nullable(Type.String()),
  creditUsed: Type.Integer({ description: 'Microcredits charged' }),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced and reserved at creation' }),
  progress: Nullable(Type.Number()),
  progressMessage: Nullable(Type.String()),
  createdAt: Type.String(),
  startedAt: Nullable(Type.String()),
  finishedAt: Nullable(Type.String()),
}, { $id: 'NodeRun' });

export const RunCreatedSchema = Type.Object({
  runId: Type.String(),
  status: Type.String(),
  estimatedCredits: Type.Integer(),
}, { $id: 'RunCreated', additionalProperties: true });

/**
 * A workflow run's view. Registered with the app's shared schemas (http/app.ts), not inside its routes'
 * plugin: a plugin that adds a schema gets a validator compiler of its own, Fastify's default, and its
 * routes silently lost the service's validation rules (strict bodies, no Infinity through a query).
 */
export const WorkflowRun = Type.Object({}, { additionalProperties: true, $id: 'WorkflowRun', description: '{ id, status, workflowId, triggerRunId, createdAt, startedAt, finishedAt, error, context, outputs, estimatedCredits, actualCredits, nodeRuns[] }' });
