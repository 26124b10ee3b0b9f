import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { parseCancelAfter, parsePreferWait } from '../runHeaders.js';
import { answerCreatedRun } from '../createdRun.js';
import { modelRunView } from '../../runs/view.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { tracedRunCreate } from '../plugins/tracing.js';
import { CreateNodeRunBody, NodeRunCreated, NodeRunSchema, RunCreatedSchema } from '../../contract/runs.js';

const RunIdParams = Type.Object({ runId: Type.String({ maxLength: 100 }) });
const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Standalone model runs (the record is src/contract/runs.ts). */
export async function modelRunRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['nodes'];
  const runs = services.nodeRuns;
  // A queued run's record says where it stands (queue/positions.ts: a shared snapshot, not a query per read).
  const standingView = async (run: any) => modelRunView(services.files, run, run.status === 'QUEUED' ? await services.queuePositions.of(run.id) : undefined);

  app.post('/v1/nodes/:nodeType/run', {
    schema: {
      tags, summary: 'Start a standalone model run',
      description: 'Validates the input against the model schema, prices it, reserves the cost and queues the run (at body.priority: 0 normal, up to the key\'s ceiling). Headers: Idempotency-Key (same key and body within 24 h return the first run), Cancel-After (seconds or 90s/5m/1h), Prefer: wait=N (1..60: answer when the run ends or after N s, with the run record).',
      params: Type.Object({ nodeType: Type.String({ maxLength: 100 }) }),
      body: CreateNodeRunBody,
      headers: Type.Object({
        'idempotency-key': Type.Optional(Type.String()),
        'cancel-after': Type.Optional(Type.String()),
        prefer: Type.Optional(Type.String()),
      }),
      response: withErrors({ 200: NodeRunCreated, 202: Type.Union([Type.Ref(RunCreatedSchema), NodeRunCreated]) }, [403, 404, 409, 410, 413, 503]),
    },
  }, async (req, reply) => {
    const principal = principalOf(req);
    const body = req.body;
    const wait = parsePreferWait(header(req, 'prefer'));
    // Taken before the run exists, so the wait knows it heard every end of it (runs/runEndWatch.ts).
    const mark = wait !== undefined ? runs.endMark() : undefined;
    const { run, replayed } = await tracedRunCreate(req, { 'atelier.run.kind': 'model', 'atelier.model': req.params.nodeType }, () => runs.create({
      accountId: principal.accountId,
      keyId: principal.keyId,
      scope: principal.scope,
      nodeType: req.params.nodeType,
      subModelId: body.subModelId,
      input: body.input ?? {},
      webhook: body.webhook,
      idempotencyKey: header(req, 'idempotency-key'),
      cancelAfterSeconds: parseCancelAfter(header(req, 'cancel-after')),
      priority: body.priority,
    }));
    return answerCreatedRun(reply, {
      run, replayed, location: `/v1/nodes/runs/${run.id}`, wait,
      waitForEnd: (id, s) => runs.waitForEnd(id, s, replayed ? undefined : mark),
      view: async () => standingView(await runs.get(principal.accountId, run.id)),
    });
  });

  app.get('/v1/nodes/runs/:runId', {
    schema: { tags, summary: 'Get standalone model run status and output', params: RunIdParams, response: withErrors({ 200: Type.Ref(NodeRunSchema) }, [404]) },
  }, async (req) => standingView(await runs.get(principalOf(req).accountId, req.params.runId)));

  app.post('/v1/nodes/runs/:runId/cancel', {
    schema: { tags, summary: 'Cancel a standalone model run', params: RunIdParams, response: withErrors({ 200: Type.Ref(NodeRunSchema) }, [404]) },
  }, async (req) => modelRunView(services.files, await runs.cancel(principalOf(req).accountId, req.params.runId)));

  app.get('/v1/nodes/runs', {
    schema: {
      tags, summary: 'List standalone model runs, newest first',
      querystring: Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 500 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: withErrors({ 200: Type.Object({ items: Type.Array(Type.Ref(NodeRunSchema)), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }),
    },
  }, async (req) => {
    const { cursor, limit } = req.query;
    const page = await runs.list(principalOf(req).accountId, cursor, limit);
    return { items: await Promise.all(page.runs.map(standingView)), nextCursor: page.nextCursor };
  });
}

