import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { BatchSchema, CreateBatchBody } from '../../contract/batches.js';

const BatchIdParams = Type.Object({ batchId: Type.String({ maxLength: 100 }) });

/** Batch runs (issue 29): N inputs of one model, one hold, N runs, one batch record (runs/batches.ts). */
export async function batchRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['nodes'];

  app.post('/v1/nodes/:nodeType/batch', {
    schema: {
      tags, summary: 'Start a batch of runs of one model',
      description: 'Validates and prices every input (one bad input refuses the whole batch, naming it, and nothing is held), holds the sum of their prices at once (403 INSUFFICIENT_CREDITS when the balance cannot cover all of it) and queues one run per input, in input order. Each run is charged when it completes and refunded when it fails or is canceled. Idempotency-Key: the same key and body within 24 h answer the first batch (Idempotent-Replayed: true) and start nothing more. Answers the batch record; GET /v1/batches/{batchId} follows its progress.',
      params: Type.Object({ nodeType: Type.String({ maxLength: 100 }) }),
      body: CreateBatchBody,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
      response: withErrors({ 202: Type.Ref(BatchSchema) }, [403, 404, 409, 410, 413, 503]),
    },
  }, async (req, reply) => {
    const principal = principalOf(req);
    const key = req.headers['idempotency-key'];
    const { batch, replayed } = await services.batches.create({
      idempotencyKey: Array.isArray(key) ? key[0] : key,
      accountId: principal.accountId, keyId: principal.keyId, scope: principal.scope, nodeType: req.params.nodeType,
      subModelId: req.body.subModelId, inputs: req.body.inputs, webhook: req.body.webhook, priority: req.body.priority,
    });
    if (replayed) reply.header('Idempotent-Replayed', 'true');
    reply.header('Location', `/v1/batches/${batch.id}`);
    return reply.code(202).send(batch);
  });

  app.get('/v1/batches/:batchId', {
    schema: { tags, summary: 'Get a batch: its progress, charges and runs', params: BatchIdParams, response: withErrors({ 200: Type.Ref(BatchSchema) }, [404]) },
  }, async (req) => services.batches.get(principalOf(req).accountId, req.params.batchId));

  app.post('/v1/batches/:batchId/cancel', {
    schema: { tags, summary: 'Cancel the runs of a batch that have not ended (each is refunded)', params: BatchIdParams, response: withErrors({ 200: Type.Ref(BatchSchema) }, [404]) },
  }, async (req) => {
    const accountId = principalOf(req).accountId;
    return services.batches.cancel(accountId, req.params.batchId, (runId) => services.nodeRuns.cancelById(runId, 'batch canceled by request'));
  });
}
