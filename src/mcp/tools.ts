import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Services } from '../services.js';
import type { Principal } from '../keys/service.js';
import { AppError } from '../errors.js';
import { search } from '../catalog/search.js';
import { modelEntry, pricingView, schemaView } from '../catalog/views.js';
import { estimateNodes, totalMicrocredits } from '../catalog/estimate.js';
import { balanceView } from '../billing/balanceView.js';
import { modelRunView } from '../runs/view.js';
import { workflowRunView } from '../workflows/runView.js';
import { toolCall as runTool } from './result.js';
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { ModelEntry, SearchResponse, SubModel } from '../contract/models.js';

// GET /v1/models/search is serialized by Fastify with fast-json-stringify over this schema (key order and
// field set follow the schema), so compiling the same schema here makes search_models byte-identical (spec 4.5).
const searchJson = fastJson(SearchResponse);
// GET /v1/models likewise (its 200 schema is an array of ModelEntry), so list_node_types sends the same bytes.
const modelListJson = fastJson(Type.Array(Type.Ref(ModelEntry)), { schema: JSON.parse(JSON.stringify({ ModelEntry, SubModel })) });

// Open objects: model inputs are validated by the services against each model's own schema, which names
// the offending field; duplicating that in zod would drift from the REST behaviour.
const anyObject = z.record(z.string(), z.unknown());
const modelId = z.string().min(1).max(100);

/**
 * Registers the Atelier tools for one authenticated principal. Each tool calls the same service and view
 * functions as the matching REST route, so its text content is the JSON that route returns.
 */
export function registerTools(server: McpServer, services: Services, principal: Principal, log: (err: unknown) => void): void {
  const { catalog } = services;
  // Every tool body goes through toolCall; unexpected (non-AppError) failures are logged, not leaked.
  const toolCall = (fn: () => Promise<unknown>, serialize?: (value: any) => string) => runTool(fn, serialize, log);
  const accountId = principal.accountId;

  server.registerTool('search_models', {
    description: 'Search the model catalog, grouped by category. Same JSON as GET /v1/models/search. query is a category (image, video, text-to-speech, lipsync, transcription, music-generation, sound-effects, image-to-video) or a keyword; omit it for the whole catalog. Check noMatch before reading modelCatalog. Each entry says how it works in engine (ml, tool, procedural, remote): for a photo-real or illustrated image from a description pick an engine "remote" text-to-image model; "procedural" ones (poster_render, qr_code, pattern_art) make layouts, codes and patterns and never follow a description (see their note). Next: get_model_schema, get_model_pricing, estimate_credits, run_model.',
    inputSchema: { query: z.string().max(200).optional().describe('Category or keyword filter') },
  }, ({ query }) => toolCall(async () => search(catalog, query), searchJson));

  server.registerTool('list_node_types', {
    description: 'List every model (node type) with its sub-models. Same JSON as GET /v1/models.',
    inputSchema: {},
  }, () => toolCall(async () => catalog.models.map((m) => modelEntry(catalog, m)), modelListJson));

  server.registerTool('get_model_schema', {
    description: 'Input schema of a model: pass a subModelId, or the nodeType of a model without sub-models. Same JSON as GET /v1/models/{modelId}/schema.',
    inputSchema: { modelId },
  }, ({ modelId: id }) => toolCall(async () => schemaView(catalog, catalog.resolveModelId(id))));

  server.registerTool('get_model_pricing', {
    description: 'Pricing of a model (subModelId or nodeType). Same JSON as GET /v1/models/{modelId}/pricing.',
    inputSchema: { modelId },
  }, ({ modelId: id }) => toolCall(async () => pricingView(catalog, catalog.resolveModelId(id))));

  server.registerTool('estimate_credits', {
    description: 'Exact cost in microcredits of node configurations, priced by the function that charges runs. Same JSON as POST /v1/workflows/estimate-credits: { totalMicrocredits, estimates[] }.',
    inputSchema: {
      nodes: z.array(z.object({
        type: z.string().min(1).max(100).describe('nodeType'),
        subModelId: z.string().max(100).nullable().optional(),
        data: anyObject.optional().describe('Model input, as for run_model'),
      })).describe('Node configurations, at most 100'),
    },
  }, ({ nodes }) => toolCall(async () => {
    const estimates = estimateNodes(catalog, nodes);
    return { totalMicrocredits: totalMicrocredits(estimates), estimates };
  }));

  server.registerTool('get_balance', {
    description: 'Credit balance of the key\'s account in microcredits. Same JSON as GET /v1/credits/balance.',
    inputSchema: {},
  }, () => toolCall(() => balanceView(services.credits, principal)));

  server.registerTool('run_model', {
    description: 'Start a standalone model run: validates input against the model schema, reserves the cost and queues it. Returns { runId, status, estimatedCredits }; poll get_run until status is COMPLETED, FAILED or CANCELED.',
    inputSchema: {
      nodeType: z.string().min(1).max(100),
      subModelId: z.string().max(100).nullable().optional(),
      input: anyObject.optional().describe('Model input; see get_model_schema'),
    },
  }, ({ nodeType, subModelId, input }) => toolCall(async () => {
    const { run } = await services.nodeRuns.create({ accountId, keyId: principal.keyId, scope: principal.scope, nodeType, subModelId, input: input ?? {} });
    return { runId: run.id, status: run.status, estimatedCredits: Number(run.estimated_microcredits) };
  }));

  server.registerTool('get_run', {
    description: 'Status and output of a run by id: a standalone model run (as GET /v1/nodes/runs/{runId}) or a workflow run (as GET /v1/runs/{runId}).',
    inputSchema: { runId: z.string().min(1).max(100) },
  }, ({ runId }) => toolCall(async () => {
    // Run ids share one namespace; the kind decides which view applies, and both lookups 404 the same way.
    const row = await services.nodeRuns.get(accountId, runId).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    });
    if (row) return modelRunView(services.files, row);
    const { run, nodes } = await services.workflowRuns.get(accountId, runId);
    return workflowRunView(services.files, run, nodes, { details: true });
  }));

  server.registerTool('list_system_workflows', {
    description: 'Ready-made workflows anyone can run by slug, with their request fields. Same JSON as GET /v1/system-workflows.',
    inputSchema: {},
  }, () => toolCall(() => services.workflows.systemList()));

  server.registerTool('run_workflow', {
    description: 'Start a workflow run. workflowId is a workflow id (wf_…) or a system workflow slug; values is { <requestNodeId>: { <field id or name>: value } }. Returns { runId, status, estimatedCredits }; poll get_run.',
    inputSchema: {
      workflowId: z.string().min(1).max(100),
      values: anyObject.optional(),
    },
  }, ({ workflowId, values }) => toolCall(async () => {
    const { run } = await services.workflowRuns.create({ accountId, keyId: principal.keyId, scope: principal.scope, workflowId, values });
    return { runId: run.id, status: run.status, estimatedCredits: Number(run.estimated_microcredits) };
  }));
}
