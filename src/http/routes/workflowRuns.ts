import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { parseCancelAfter, parsePreferWait } from '../runHeaders.js';
import { answerCreatedRun } from '../createdRun.js';
import { workflowRunView } from '../../workflows/runView.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { tracedRunCreate } from '../plugins/tracing.js';
import { CreateWorkflowRunBody, ListWorkflowRunsQuery, RunCreatedSchema, WorkflowRun, WorkflowRunCreated } from '../../contract/runs.js';
import { STREAM_RULES, streamRunEvents } from './runEvents.js';
import { STREAMED_OUTPUT_RULES } from '../../contract/webhooks.js';

const RunId = Type.Object({ runId: Type.String({ maxLength: 100 }) });
const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Workflow runs (spec 4.3), the node cache (DELETE …/cache) and system workflows. */
export async function workflowRunRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['runs'];
  const runs = services.workflowRuns;
  const acct = (req: FastifyRequest) => principalOf(req).accountId;
  const view = async (accountId: string, runId: string, details = true) => {
    const { run, nodes } = await runs.get(accountId, runId);
    return workflowRunView(services.files, run, nodes, { details });
  };

  app.post('/v1/runs', {
    schema: {
      tags, summary: 'Start a workflow run',
      description: 'values: { <requestNodeId>: { <field id or name>: value } }. priority as for model runs (0 normal, up to the key\'s ceiling); the run\'s node jobs are queued at it. Headers as for model runs: Idempotency-Key, Cancel-After, Prefer: wait=N.',
      body: CreateWorkflowRunBody,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()), 'cancel-after': Type.Optional(Type.String()), prefer: Type.Optional(Type.String()) }),
      response: withErrors({ 200: WorkflowRunCreated, 202: Type.Union([Type.Ref(RunCreatedSchema), WorkflowRunCreated]) }, [403, 404, 409, 413, 503]),
    },
  }, async (req, reply) => {
    const accountId = acct(req);
    const body = req.body;
    const wait = parsePreferWait(header(req, 'prefer'));
    // Taken before the run exists, so the wait knows it heard every end of it (runs/runEndWatch.ts).
    const mark = wait !== undefined ? services.nodeRuns.endMark() : undefined;
    const { run, replayed } = await tracedRunCreate(req, { 'atelier.run.kind': 'workflow', 'atelier.workflow.id': body.workflowId }, () => runs.create({
      accountId, workflowId: body.workflowId, values: body.values, webhook: body.webhook, priority: body.priority,
      keyId: principalOf(req).keyId, scope: principalOf(req).scope,
      idempotencyKey: header(req, 'idempotency-key'), cancelAfterSeconds: parseCancelAfter(header(req, 'cancel-after')),
    }));
    return answerCreatedRun(reply, {
      run, replayed, location: `/v1/runs/${run.id}`, wait,
      waitForEnd: (id, s) => services.nodeRuns.waitForEnd(id, s, replayed ? undefined : mark),
      view: () => view(accountId, run.id),
    });
  });

  app.get('/v1/runs/:runId', {
    schema: {
      tags, summary: 'Get workflow run status', params: RunId,
      querystring: Type.Object({ inDetails: Type.Boolean({ default: true, description: 'false omits node runs\' input and output' }) }),
      response: withErrors({ 200: Type.Ref(WorkflowRun) }, [404]),
    },
  }, async (req) => view(acct(req), req.params.runId, req.query.inDetails));

  app.post('/v1/runs/batch', {
    schema: {
      tags, summary: 'Get several workflow runs (unknown ids are left out)',
      body: Type.Object({ ids: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
      response: withErrors({ 200: Type.Object({ runs: Type.Array(Type.Ref(WorkflowRun)) }) }),
    },
  }, async (req) => {
    const found = await runs.batch(acct(req), req.body.ids);
    return { runs: await Promise.all(found.filter((f) => f.run.kind === 'workflow').map((f) => workflowRunView(services.files, f.run, f.nodes))) };
  });

  app.get('/v1/runs', {
    schema: {
      tags, summary: 'List workflow runs, newest first',
      querystring: ListWorkflowRunsQuery,
      response: withErrors({ 200: Type.Object({ items: Type.Array(Type.Ref(WorkflowRun)), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }),
    },
  }, async (req) => {
    const accountId = acct(req);
    const page = await runs.list(accountId, req.query);
    const nodes = await runs.nodesOf(page.runs.map((r) => r.id));
    return {
      items: await Promise.all(page.runs.map((r) => workflowRunView(services.files, r, nodes.filter((n) => n.run_id === r.id), { details: false }))),
      nextCursor: page.nextCursor,
    };
  });

  app.post('/v1/runs/:runId/cancel', {
    schema: { tags, summary: 'Cancel a workflow run', params: RunId, response: withErrors({ 200: Type.Ref(WorkflowRun) }, [404]) },
  }, async (req) => {
    const { runId } = req.params;
    await runs.cancel(acct(req), runId);
    return view(acct(req), runId);
  });

  app.get('/v1/runs/:runId/events', {
    schema: { tags, summary: 'Stream a workflow run\'s events (Server-Sent Events)', description: `${STREAMED_OUTPUT_RULES} ${STREAM_RULES}`, params: RunId, produces: ['text/event-stream'] },
  }, async (req, reply) => {
    const { runId } = req.params;
    await runs.get(acct(req), runId);
    await streamRunEvents(services, req, reply, runId);
  });

  app.delete('/v1/workflows/:id/cache', {
    schema: {
      tags: ['workflows'], summary: 'Clear the node cache of a workflow', params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
      response: withErrors({ 200: Type.Object({ workflowId: Type.String(), cleared: Type.Integer() }) }, [404]),
    },
  }, async (req) => services.workflows.clearCache(acct(req), req.params.id));

  app.get('/v1/system-workflows', {
    schema: {
      tags: ['workflows'], summary: 'List system workflows',
      response: withErrors({ 200: Type.Object({ items: Type.Array(Type.Object({
        id: Type.String(), slug: Type.String(), name: Type.String(), description: Type.String(), category: Type.String(),
        nodeTypes: Type.Array(Type.String()), requestFields: Type.Array(Type.Object({}, { additionalProperties: true })),
      })) }) }),
    },
  }, async () => services.workflows.systemList());
}
