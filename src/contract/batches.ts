import { Type } from '@sinclair/typebox';
import { WebhookConfigSchema } from './runs.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Iso = () => Type.String({ format: 'date-time' });
const RUN_STATES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELED'] as const;

/** POST /v1/nodes/{nodeType}/batch (issue 29). */
export const CreateBatchBody = Type.Object({
  subModelId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  inputs: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 100, description: 'One model input per run (1 to 100), each validated and priced like POST /v1/nodes/{nodeType}/run\'s input' }),
  webhook: Type.Optional(Type.Union([Type.Ref(WebhookConfigSchema), Type.Null()])),
  priority: Type.Optional(Type.Integer({ minimum: -10, maximum: 10, description: 'Queue priority of every run of the batch (as for a single run)' })),
}, { additionalProperties: false });

export const BatchRunSchema = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'Position of its input in body.inputs' }),
  runId: Type.String({ description: 'GET /v1/nodes/runs/{runId} for its output' }),
  subModelId: Nullable(Type.String()),
  status: Type.Union(RUN_STATES.map((s) => Type.Literal(s))),
  estimatedCredits: Type.Integer({ description: 'Microcredits priced and held for this input' }),
  creditUsed: Type.Integer({ description: 'Microcredits charged (0 unless COMPLETED: a failed or canceled run is refunded)' }),
  error: Nullable(Type.String()),
  errorCode: Type.Optional(Type.String()),
}, { $id: 'BatchRun' });

export const BatchSchema = Type.Object({
  id: Type.String({ examples: ['bat_4Gm2Q8sXv1LzT0aPcK7e'] }),
  nodeType: Type.String(),
  subModelId: Nullable(Type.String({ description: 'As asked; each run names the sub-model it resolved to' })),
  status: Type.Union(RUN_STATES.map((s) => Type.Literal(s)), { description: 'QUEUED (no run started), RUNNING (some not ended), then COMPLETED (at least one run completed), FAILED or CANCELED (all canceled)' }),
  size: Type.Integer({ minimum: 1, maximum: 100 }),
  priority: Type.Integer(),
  counts: Type.Object({ queued: Type.Integer(), running: Type.Integer(), completed: Type.Integer(), failed: Type.Integer(), canceled: Type.Integer() }),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the runs that ended' }),
  estimatedCredits: Type.Integer({ description: 'The whole batch\'s price, held at once when it was created' }),
  creditUsed: Type.Integer({ description: 'Microcredits charged so far (the completed runs)' }),
  refundedCredits: Type.Integer({ description: 'Microcredits given back for failed and canceled runs' }),
  createdAt: Iso(),
  startedAt: Nullable(Iso()),
  finishedAt: Nullable(Iso()),
  runs: Type.Array(Type.Ref(BatchRunSchema)),
}, { $id: 'Batch' });
