import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { AddEdgeBody, AddNodeBody, CreateWorkflowBody, ListWorkflowsQuery, PatchNodeBody, PatchWorkflowBody, QuickCreateWorkflowBody, WorkflowSchema } from '../../contract/workflows.js';

const Id = Type.Object({ id: Type.String({ maxLength: 100 }) });
const IdNode = Type.Object({ id: Type.String({ maxLength: 100 }), nodeId: Type.String({ maxLength: 100 }) });
const IdEdge = Type.Object({ id: Type.String({ maxLength: 100 }), edgeId: Type.String({ maxLength: 100 }) });
const WorkflowRef = Type.Ref(WorkflowSchema);
const graphErrors = [403, 404, 409];

/** Workflow CRUD (graph shapes in src/contract/workflows.ts). */
export async function workflowRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['workflows'];
  const wf = services.workflows;
  const acct = (req: Parameters<typeof principalOf>[0]) => principalOf(req).accountId;

  app.post('/v1/workflows', {
    schema: {
      tags, summary: 'Create a workflow from a full graph',
      description: 'Missing Request and Response nodes are added. An invalid graph answers 400 INVALID_GRAPH with nodeErrors [{ nodeId, port?, message }].',
      body: CreateWorkflowBody,
      response: withErrors({ 201: WorkflowRef }, graphErrors),
    },
  }, async (req, reply) => reply.code(201).send(await wf.create(acct(req), req.body)));

  app.post('/v1/workflows/quick-create', {
    schema: {
      tags, summary: 'Create a scaffolded Request and Response workflow',
      body: QuickCreateWorkflowBody,
      response: withErrors({ 201: WorkflowRef }),
    },
  }, async (req, reply) => reply.code(201).send(await wf.quickCreate(acct(req), req.body ?? {})));

  app.get('/v1/workflows', {
    schema: {
      tags, summary: 'List workflows, most recently changed first',
      querystring: ListWorkflowsQuery,
      response: withErrors({ 200: Type.Object({ items: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), updatedAt: Type.String(), nodeCount: Type.Integer() })), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }),
    },
  }, async (req) => wf.list(acct(req), req.query));

  app.get('/v1/workflows/:id', {
    schema: { tags, summary: 'Get a workflow (id, or a system workflow slug)', params: Id, response: withErrors({ 200: WorkflowRef }, [404]) },
  }, async (req) => wf.get(acct(req), req.params.id));

  app.patch('/v1/workflows/:id', {
    schema: {
      tags, summary: 'Rename or describe a workflow', params: Id,
      body: PatchWorkflowBody,
      response: withErrors({ 200: WorkflowRef }, graphErrors),
    },
  }, async (req) => wf.patch(acct(req), req.params.id, req.body));

  app.delete('/v1/workflows/:id', {
    schema: { tags, summary: 'Delete a workflow', params: Id, response: withErrors({ 204: Type.Null() }, graphErrors) },
  }, async (req, reply) => {
    await wf.remove(acct(req), req.params.id);
    return reply.code(204).send();
  });

  app.post('/v1/workflows/:id/nodes', {
    schema: {
      tags, summary: 'Add a node to a workflow', params: Id,
      description: 'Placed by column (≥ 1; column 1 is the first batch after the Request node) and row, or at an exact position. `mode` may be a subModelId or a sub-model category.',
      body: AddNodeBody,
      response: withErrors({ 201: Type.Object({
        nodeId: Type.String(), type: Type.String(), subModelId: Type.Union([Type.String(), Type.Null()]), mode: Type.String(),
        position: Type.Object({ x: Type.Number(), y: Type.Number() }), inputPorts: Type.Array(Type.String()), outputPorts: Type.Array(Type.String()), inputsSet: Type.Array(Type.String()),
      }) }, [...graphErrors, 410]),
    },
  }, async (req, reply) => reply.code(201).send(await wf.addNode(acct(req), req.params.id, req.body)));

  app.patch('/v1/workflows/:id/nodes/:nodeId', {
    schema: {
      tags, summary: 'Update input values of a node', params: IdNode,
      description: 'Inputs are merged into the node\'s values and validated; null removes a value.',
      body: PatchNodeBody,
      response: withErrors({ 200: Type.Object({ nodeId: Type.String(), type: Type.String(), subModelId: Type.Union([Type.String(), Type.Null()]), data: Type.Object({}, { additionalProperties: true }), inputsSet: Type.Array(Type.String()) }) }, graphErrors),
    },
  }, async (req) => {
    const { id, nodeId } = req.params;
    return wf.patchNode(acct(req), id, nodeId, req.body);
  });

  app.delete('/v1/workflows/:id/nodes/:nodeId', {
    schema: { tags, summary: 'Remove a node and its edges', params: IdNode, response: withErrors({ 204: Type.Null() }, graphErrors) },
  }, async (req, reply) => {
    const { id, nodeId } = req.params;
    await wf.deleteNode(acct(req), id, nodeId);
    return reply.code(204).send();
  });

  app.post('/v1/workflows/:id/edges', {
    schema: {
      tags, summary: 'Connect an output port to an input port', params: Id,
      body: AddEdgeBody,
      response: withErrors({ 201: Type.Object({
        edgeId: Type.String(), source: Type.String(), sourceHandle: Type.String(), target: Type.String(), targetHandle: Type.String(),
        dataTypes: Type.Object({ source: Type.Union([Type.String(), Type.Null()]), target: Type.Union([Type.String(), Type.Null()]) }),
      }) }, graphErrors),
    },
  }, async (req, reply) => reply.code(201).send(await wf.addEdge(acct(req), req.params.id, req.body)));

  app.delete('/v1/workflows/:id/edges/:edgeId', {
    schema: { tags, summary: 'Remove an edge', params: IdEdge, response: withErrors({ 204: Type.Null() }, graphErrors) },
  }, async (req, reply) => {
    const { id, edgeId } = req.params;
    await wf.deleteEdge(acct(req), id, edgeId);
    return reply.code(204).send();
  });

  app.post('/v1/workflows/:id/duplicate', {
    schema: { tags, summary: 'Duplicate a workflow (user or system) into your workspace', params: Id, response: withErrors({ 201: WorkflowRef }, [404]) },
  }, async (req, reply) => reply.code(201).send(await wf.duplicate(acct(req), req.params.id)));
}
