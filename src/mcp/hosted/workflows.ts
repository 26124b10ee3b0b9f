import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { REQUEST_FIELD_TYPES } from '../../contract/workflows.js';
import { answerCall, type ToolAnswer } from '../result.js';
import { given, type ToolContext } from './context.js';
import { checkWorkflowEdits } from '../../keys/scopes.js';

/**
 * Workflows and the builder: each tool calls the WorkflowService method of the matching REST route
 * (POST/PATCH/DELETE /v1/workflows…), so graph validation, ownership (system workflows are read-only,
 * another account's are 404) and limits are the route's.
 */

const anyObject = z.record(z.string(), z.unknown());
const workflowId = z.string().min(1).max(100).describe('Workflow id (wf_…)');
const position = z.object({ x: z.number(), y: z.number() });
const requestField = z.object({
  id: z.string().regex(/^[a-z0-9_]{1,64}$/).optional(),
  name: z.string().min(1).max(100),
  type: z.enum(REQUEST_FIELD_TYPES as [string, ...string[]]),
  value: z.unknown().optional(),
});
const nodeInput = z.object({
  id: z.string().min(1).max(64).optional(), type: z.string().min(1).max(100), subModelId: z.string().max(100).nullable().optional(),
  label: z.string().max(200).nullable().optional(), position: position.optional(), data: anyObject.optional(),
});
const edgeInput = z.object({
  id: z.string().min(1).max(64).optional(), source: z.string().min(1).max(64), sourceHandle: z.string().min(1).max(200),
  target: z.string().min(1).max(64), targetHandle: z.string().min(1).max(200),
});

/** JSON text plus the same object as structured content. */
function plain(value: Record<string, unknown>, lead?: string): ToolAnswer {
  return { text: `${lead ? `${lead}\n` : ''}${JSON.stringify(value)}`, structured: value };
}

function workflowSummary(w: { id: string; name: string; nodes: Array<{ id: string; type: string }>; edges: unknown[]; requestFields: Array<{ id: string; name: string; type: string }> }): string {
  return `Workflow ${w.name} (${w.id}): ${w.nodes.length} nodes (${w.nodes.map((n) => `${n.id}=${n.type}`).join(', ')}), ${w.edges.length} edges; request fields: ${w.requestFields.map((f) => `${f.id} (${f.type})`).join(', ') || 'none'}`;
}

export function registerWorkflowTools(server: McpServer, ctx: ToolContext): void {
  const wf = ctx.services.workflows;
  const acct = ctx.accountId;
  const call = (fn: () => Promise<ToolAnswer>) => answerCall(fn, ctx.log);
  // A run-only or read-only key may read workflows and run them, not change them (keys/scopes.ts): MCP's one
  // route carries every tool, so the role is checked here, per tool, as the REST routes check it per route.
  const edit = (fn: () => Promise<ToolAnswer>) => call(async () => {
    checkWorkflowEdits(ctx.principal.scope);
    return fn();
  });

  server.registerTool('list_workflows', {
    description: 'Your workflows, most recently changed first. search filters by name; pass nextCursor back as cursor for more.',
    inputSchema: { search: z.string().max(200).optional(), cursor: z.string().max(500).optional(), limit: z.number().int().min(1).max(100).optional() },
  }, (a) => call(async () => {
    const page = await wf.list(acct, { search: given(a.search), cursor: given(a.cursor), limit: a.limit ?? 20 });
    const lines = page.items.map((w) => `- ${w.id}: ${w.name} (${w.nodeCount} nodes, changed ${w.updatedAt})`);
    return { text: [`${page.items.length} workflow(s)`, ...lines].join('\n'), structured: { workflows: page.items, nextCursor: page.nextCursor } };
  }));

  server.registerTool('get_workflow', {
    description: 'A workflow\'s graph: nodes (with their input values), edges, the Request node\'s fields and the Response node. Same JSON as GET /v1/workflows/{id}; a system workflow may be named by its slug.',
    inputSchema: { workflowId },
  }, ({ workflowId: id }) => call(async () => {
    const w = await wf.get(acct, id.trim());
    return plain(w as unknown as Record<string, unknown>, workflowSummary(w));
  }));

  server.registerTool('create_workflow', {
    description: 'Create a workflow. Without nodes it is a Request node (fields from requestFields, default one text field "prompt") wired to nothing and a Response node; add models with add_node and wire them with connect_nodes.',
    inputSchema: {
      name: z.string().min(1).max(200), description: z.string().max(5000).optional(),
      requestFields: z.array(requestField).max(50).optional().describe('Inputs the workflow asks for: { name, type: text|number|boolean|image|audio|video|file|any, value? }'),
      nodes: z.array(nodeInput).max(100).optional(), edges: z.array(edgeInput).max(1000).optional(),
    },
  }, (a) => edit(async () => {
    const w = await wf.create(acct, { name: a.name, description: a.description, nodes: (a.nodes ?? []) as never, edges: a.edges ?? [], requestFields: a.requestFields as never });
    return plain(w as unknown as Record<string, unknown>, `Created. ${workflowSummary(w)}`);
  }));

  server.registerTool('update_workflow', {
    description: 'Rename or describe a workflow; with nodes and edges, replace its whole graph (it must keep one Request and one Response node).',
    inputSchema: {
      workflowId, name: z.string().min(1).max(200).optional(), description: z.string().max(5000).optional(),
      nodes: z.array(nodeInput).max(100).optional(), edges: z.array(edgeInput).max(1000).optional(),
    },
  }, (a) => edit(async () => {
    const id = a.workflowId.trim();
    let w;
    if (a.nodes !== undefined || a.edges !== undefined) {
      const current = await wf.get(acct, id);
      w = await wf.replaceGraph(acct, id, { name: a.name, description: a.description, nodes: (a.nodes ?? current.nodes) as never, edges: a.edges ?? current.edges });
    } else w = await wf.patch(acct, id, { name: a.name, description: a.description });
    return plain(w as unknown as Record<string, unknown>, `Updated. ${workflowSummary(w)}`);
  }));

  server.registerTool('delete_workflow', {
    description: 'Delete one of your workflows (its past runs stay readable).',
    inputSchema: { workflowId },
  }, ({ workflowId: id }) => edit(async () => {
    await wf.remove(acct, id.trim());
    return plain({ deleted: true, workflowId: id.trim() }, `Deleted workflow ${id.trim()}.`);
  }));

  server.registerTool('add_node', {
    description: 'Add a model node to a workflow. nodeType from list_node_types or search_tools (a sub-model id is accepted too), inputs are its fixed input values; placed by column (1 = first after the Request node) and row. Answers the node id and its ports (in:<field>, out:<output>) for connect_nodes.',
    inputSchema: {
      workflowId, nodeType: z.string().min(1).max(100), subModelId: z.string().max(100).optional(),
      inputs: anyObject.optional(), label: z.string().max(200).optional(),
      column: z.number().int().min(1).max(100).optional(), row: z.number().int().min(0).max(100).optional(), position: position.optional(),
    },
  }, (a) => edit(async () => {
    // A sub-model id given as nodeType names its model and mode.
    let nodeType = a.nodeType.trim();
    let subModelId = given(a.subModelId);
    if (!ctx.services.catalog.model(nodeType)) {
      const r = ctx.services.catalog.resolveModelId(nodeType);
      nodeType = r.model.nodeType;
      subModelId ??= r.subModelId ?? undefined;
    }
    const n = await wf.addNode(acct, a.workflowId.trim(), { nodeType, subModelId, inputs: a.inputs, label: a.label, column: a.column, row: a.row, position: a.position });
    return plain(n as unknown as Record<string, unknown>, `Added node ${n.nodeId} (${n.type}). Input ports: ${n.inputPorts.join(', ') || 'none'}. Output ports: ${n.outputPorts.join(', ') || 'none'}.`);
  }));

  server.registerTool('update_node', {
    description: 'Set input values of a node (merged; null removes one), switch its sub-model, rename or move it.',
    inputSchema: {
      workflowId, nodeId: z.string().min(1).max(100), inputs: anyObject.optional(), subModelId: z.string().max(100).optional(),
      label: z.string().max(200).optional(), position: position.optional(),
    },
  }, (a) => edit(async () => {
    const n = await wf.patchNode(acct, a.workflowId.trim(), a.nodeId.trim(), { inputs: a.inputs, subModelId: given(a.subModelId), label: a.label, position: a.position });
    return plain(n as unknown as Record<string, unknown>, `Updated node ${n.nodeId}.`);
  }));

  server.registerTool('connect_nodes', {
    description: 'Wire an output port to an input port: sourceHandle is a Request field id or out:<output>, targetHandle is in:<field> or the Response node\'s "result".',
    inputSchema: {
      workflowId, sourceNodeId: z.string().min(1).max(64), sourceHandle: z.string().min(1).max(200),
      targetNodeId: z.string().min(1).max(64), targetHandle: z.string().min(1).max(200),
    },
  }, (a) => edit(async () => {
    const e = await wf.addEdge(acct, a.workflowId.trim(), { sourceNodeId: a.sourceNodeId, sourceHandle: a.sourceHandle, targetNodeId: a.targetNodeId, targetHandle: a.targetHandle });
    return plain(e as unknown as Record<string, unknown>, `Connected ${e.source}.${e.sourceHandle} → ${e.target}.${e.targetHandle} (edge ${e.edgeId}).`);
  }));

  server.registerTool('disconnect_nodes', {
    description: 'Remove a connection: by edgeId, or by its source and target (node ids, and handles when several edges join them).',
    inputSchema: {
      workflowId, edgeId: z.string().max(64).optional(),
      sourceNodeId: z.string().max(64).optional(), sourceHandle: z.string().max(200).optional(),
      targetNodeId: z.string().max(64).optional(), targetHandle: z.string().max(200).optional(),
    },
  }, (a) => edit(async () => {
    const id = a.workflowId.trim();
    let edgeId = given(a.edgeId);
    if (!edgeId) {
      if (!a.sourceNodeId || !a.targetNodeId) throw new AppError('VALIDATION_ERROR', 'give edgeId, or sourceNodeId and targetNodeId', { details: [{ path: 'edgeId', message: 'is required without source and target' }] });
      const w = await wf.get(acct, id);
      const matches = w.edges.filter((e) => e.source === a.sourceNodeId && e.target === a.targetNodeId
        && (a.sourceHandle === undefined || e.sourceHandle === a.sourceHandle) && (a.targetHandle === undefined || e.targetHandle === a.targetHandle));
      if (matches.length === 0) throw new AppError('NOT_FOUND', `no edge from ${a.sourceNodeId} to ${a.targetNodeId} in this workflow`);
      if (matches.length > 1) throw new AppError('VALIDATION_ERROR', `${matches.length} edges join these nodes; give sourceHandle and targetHandle, or edgeId (${matches.map((e) => e.id).join(', ')})`);
      edgeId = matches[0]!.id;
    }
    await wf.deleteEdge(acct, id, edgeId);
    return plain({ deleted: true, edgeId }, `Removed edge ${edgeId}.`);
  }));

  server.registerTool('delete_node', {
    description: 'Remove a node and its connections (the Request and Response nodes stay).',
    inputSchema: { workflowId, nodeId: z.string().min(1).max(100) },
  }, (a) => edit(async () => {
    await wf.deleteNode(acct, a.workflowId.trim(), a.nodeId.trim());
    return plain({ deleted: true, nodeId: a.nodeId.trim() }, `Removed node ${a.nodeId.trim()}.`);
  }));
}
