import type { PoolClient } from 'pg';
import type { Static } from '@sinclair/typebox';
import type { AddEdgeBody, AddNodeBody, CreateWorkflowBody, ListWorkflowsQuery, NodeInputSchema, PatchNodeBody, PatchWorkflowBody, QuickCreateWorkflowBody } from '../contract/workflows.js';
import type { Db } from '../db/pool.js';
import { AppError, asFieldErrors, FieldError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { decodeCursor, pageOf } from '../pagination.js';
import type { Catalog } from '../catalog/catalog.js';
import { defaultMode, isMultiMode } from '../catalog/catalog.js';
import type { ModeDef } from '../catalog/types.js';
import { canonicalHandle, upgradeGraph } from './legacyGraph.js';
import { copyGraph, makeRequestFields, requestNode, responseNode, workflowView } from './record.js';
import { portsOf, requestFieldsOf } from './ports.js';
import { validateGraph, type ModeLookup } from './validate.js';
import { columnOf, firstFreeRow, positionFor } from './layout.js';
import { MAX_WORKFLOW_NODES, type Graph, type GraphEdge, type GraphNode, type NodeError } from './types.js';
import * as q from './queries.js';
import { countOf, rowOf, rowsOf } from '../db/typed.js';

/** A node as a request gives it (src/contract/workflows.ts); ids, labels and positions are filled in. */
export type NodeInput = Static<typeof NodeInputSchema>;

/** The web editor's whole-graph save: a create body without request fields, every field but the graph optional. */
export type ReplaceGraphInput = Omit<Static<typeof CreateWorkflowBody>, 'name' | 'requestFields'> & { name?: string };

const WF_ID = /^wf_[0-9A-Za-z]{1,40}$/;
const SLUG = /^[a-z0-9][a-z0-9-]{0,80}$/;

/**
 * After a node is added, a Response node that is not to its right (same column or left of it, as the
 * scaffold of quick-create is once the second batch of nodes arrives) moves one column to the right of
 * the new node, on its row. A Response placed further right by the user stays where it is.
 */
function keepResponseRight(graph: Graph, added: GraphNode): void {
  const column = columnOf(added.position.x);
  for (const r of graph.nodes) {
    if (r.type !== 'response' || columnOf(r.position.x) > column) continue;
    r.position = { x: positionFor(column + 1, 0).x, y: added.position.y };
  }
}

function graphError(errors: NodeError[]): AppError {
  const first = errors[0]!;
  return new AppError('INVALID_GRAPH', `${first.nodeId === '*' ? 'workflow' : `node ${first.nodeId}`}${first.port ? ` port ${first.port}` : ''}: ${first.message}`, {
    extra: { nodeErrors: errors },
    details: errors.map((e): ErrorDetail => ({ path: `nodes.${e.nodeId}${e.port ? `.${e.port}` : ''}`, message: e.message })),
  });
}

/** Workflow CRUD: every change is read under a row lock, applied, validated and written in one transaction. */
export class WorkflowService {
  constructor(private readonly db: Db, private readonly catalog: Catalog) {}

  /** Resolves each model node to its mode; the validator reports unknown ones. */
  readonly lookup: ModeLookup = (node) => {
    const model = this.catalog.model(node.type);
    if (!model) return { error: `unknown model ${node.type}` };
    if (model.deprecated) return { error: `${node.type} is retired; use ${model.deprecated.replacement}` };
    const mode = node.subModelId ? model.modes.find((m) => m.subModelId === node.subModelId) : defaultMode(model);
    if (!mode) return { error: `${node.type} has no sub-model ${node.subModelId}` };
    return { mode };
  };

  modeOf(node: GraphNode): ModeDef | undefined {
    const r = this.lookup(node);
    return 'mode' in r ? r.mode : undefined;
  }

  /** Structure plus each model node's data against its schema (required inputs may still be missing). */
  check(graph: Graph, runnable = false): void {
    const errors = validateGraph(graph, this.lookup, { runnable });
    for (const node of graph.nodes) {
      const mode = this.modeOf(node);
      if (!mode) continue;
      try {
        this.catalog.validateInput(mode, node.data, { path: 'data', partial: true });
      } catch (err) {
        const d = (err as AppError).details?.[0];
        errors.push({ nodeId: node.id, port: d ? `in:${d.path.split('.')[1] ?? ''}` : undefined, message: (err as Error).message });
      }
    }
    if (errors.length) throw graphError(errors);
  }

  private normalizeNode(n: NodeInput, index: number): GraphNode {
    const model = n.type === 'request' || n.type === 'response' ? undefined : this.catalog.model(n.type);
    const subModelId = n.subModelId ?? (model && isMultiMode(model) ? defaultMode(model).subModelId : null);
    return {
      id: n.id ?? newId('node'),
      type: n.type,
      subModelId,
      label: n.label ?? model?.name ?? (n.type === 'request' ? 'Request' : n.type === 'response' ? 'Response' : null),
      position: n.position ?? positionFor(n.type === 'request' ? 0 : 1, index),
      data: n.data ?? {},
    };
  }

  async create(accountId: string, input: Static<typeof CreateWorkflowBody>) {
    if (input.nodes.length > MAX_WORKFLOW_NODES) throw new AppError('TOO_MANY_NODES', `a workflow has at most ${MAX_WORKFLOW_NODES} nodes`);
    const nodes = input.nodes.map((n, i) => this.normalizeNode(n, i));
    let request = nodes.find((n) => n.type === 'request');
    if (!request) {
      request = requestNode(makeRequestFields(input.requestFields ?? [{ name: 'prompt', type: 'text' }]));
      nodes.unshift(request);
    } else if (input.requestFields && requestFieldsOf(request).length === 0) {
      request.data = { ...request.data, fields: makeRequestFields(input.requestFields) };
    }
    if (!nodes.some((n) => n.type === 'response')) {
      // To the right of the last node of the right-most column, on its row.
      const response = responseNode(Math.max(2, ...nodes.map((n) => columnOf(n.position.x) + 1)));
      const last = nodes.filter((n) => n.type !== 'request' && columnOf(n.position.x) === columnOf(response.position.x) - 1).at(-1);
      if (last) response.position = { x: response.position.x, y: last.position.y };
      nodes.push(response);
    }
    const graph: Graph = upgradeGraph({ nodes, edges: input.edges.map((e) => ({ ...e, id: e.id ?? newId('edge') })) });
    this.check(graph);
    const r = await rowOf<q.WorkflowRow>(
      this.db, q.INSERT_WORKFLOW,
      [newId('wf'), accountId, input.name, input.description ?? '', graph],
    );
    return workflowView(r!);
  }

  async quickCreate(accountId: string, input: Static<typeof QuickCreateWorkflowBody>) {
    return this.create(accountId, { name: input.name ?? 'Untitled workflow', description: input.description, nodes: [], edges: [], requestFields: input.requestFields });
  }

  /** A workflow the account may read: its own, or a system workflow (by id or slug). 404 otherwise. */
  async getRow(accountId: string, idOrSlug: string, tx: Pick<PoolClient, 'query'> = this.db.pool, lock = false): Promise<any> {
    const byId = WF_ID.test(idOrSlug);
    if (!byId && !SLUG.test(idOrSlug)) throw new AppError('NOT_FOUND', 'workflow not found');
    const row = await rowOf<q.WorkflowRow>(
      tx, q.workflowByKeySql(byId, lock),
      [idOrSlug, accountId],
    );
    if (!row) throw new AppError('NOT_FOUND', 'workflow not found');
    row.graph = upgradeGraph(row.graph);
    return row;
  }

  async get(accountId: string, idOrSlug: string) {
    return workflowView(await this.getRow(accountId, idOrSlug));
  }

  async list(accountId: string, f: Static<typeof ListWorkflowsQuery>) {
    const after = decodeCursor(f.cursor);
    const rows = await rowsOf<q.WorkflowSummaryRow>(
      this.db, q.LIST_WORKFLOWS,
      [accountId, f.search?.replace(/[%_\\]/g, '\\$&') ?? null, after[0], after[1], f.limit + 1],
    );
    const { page, nextCursor } = pageOf(rows, f.limit, (r) => r.cursor_at);
    return { items: page.map((r) => ({ id: r.id, name: r.name, updatedAt: r.updated_at.toISOString(), nodeCount: r.node_count })), nextCursor };
  }

  /** Applies `change` to an own (not system) workflow's graph under a row lock, validates and saves it. */
  private async mutate<T>(accountId: string, id: string, change: (row: any, graph: Graph) => T | Promise<T>): Promise<{ result: T; view: ReturnType<typeof workflowView> }> {
    return this.db.tx(async (tx) => {
      const row = await this.getRow(accountId, id, tx, true);
      if (row.account_id === null) throw new AppError('FORBIDDEN', 'system workflows are read-only; duplicate it first (POST /v1/workflows/{id}/duplicate)');
      const graph: Graph = structuredClone(row.graph);
      const result = await change(row, graph);
      this.check(graph);
      const saved = await rowOf<q.WorkflowRow>(tx, q.SAVE_WORKFLOW, [row.id, graph, row.name, row.description]);
      return { result, view: workflowView(saved!) };
    });
  }

  async patch(accountId: string, id: string, p: Static<typeof PatchWorkflowBody>) {
    return (await this.mutate(accountId, id, (row) => {
      if (p.name !== undefined) row.name = p.name;
      if (p.description !== undefined) row.description = p.description;
    })).view;
  }

  /**
   * Replaces an own workflow's whole graph (and name/description) in one validated write: what the web
   * editor saves. Node ids, positions and values are kept as given, so reading the workflow back returns
   * exactly the graph that was built; the graph must keep its one Request and at least one Response node.
   */
  async replaceGraph(accountId: string, id: string, input: ReplaceGraphInput) {
    if (input.nodes.length > MAX_WORKFLOW_NODES) throw new AppError('TOO_MANY_NODES', `a workflow has at most ${MAX_WORKFLOW_NODES} nodes`);
    return (await this.mutate(accountId, id, (row, graph) => {
      const nodes = input.nodes.map((n, i) => this.normalizeNode(n, i));
      const next: Graph = upgradeGraph({ nodes, edges: input.edges.map((e) => ({ ...e, id: e.id ?? newId('edge') })) });
      const edges = next.edges;
      const errors = validateGraph(next, this.lookup, { runnable: true });
      if (errors.length) throw graphError(errors);
      graph.nodes = nodes;
      graph.edges = edges;
      if (input.name !== undefined) row.name = input.name;
      if (input.description !== undefined) row.description = input.description;
    })).view;
  }

  async remove(accountId: string, id: string): Promise<void> {
    const row = await this.getRow(accountId, id);
    if (row.account_id === null) throw new AppError('FORBIDDEN', 'system workflows cannot be deleted');
    await this.db.query(q.DELETE_WORKFLOW, [row.id, accountId]);
  }

  private resolveMode(nodeType: string, subModelId: string | undefined, mode: string | undefined) {
    const model = this.catalog.model(nodeType);
    if (!model) throw new FieldError('MODEL_NOT_FOUND', `Unknown model "${nodeType}"`, false, [{ path: 'nodeType', message: 'is not a model' }]);
    if (model.deprecated) throw new AppError('MODEL_DEPRECATED', `${nodeType} is retired; use ${model.deprecated.replacement}`);
    const wanted = subModelId ?? mode;
    if (wanted === undefined) return { model, mode: defaultMode(model) };
    // `mode` may name a subModelId or a sub-model's fine category.
    const found = model.modes.find((m) => m.subModelId === wanted) ?? (mode !== undefined ? model.modes.find((m) => m.category === mode) : undefined);
    if (!found) throw new FieldError('VALIDATION_ERROR', `${nodeType} has no mode "${wanted}"; it has ${model.modes.map((m) => m.subModelId).join(', ')}`, false, [{ path: subModelId !== undefined ? 'subModelId' : 'mode', message: 'is not a mode of this model' }]);
    return { model, mode: found };
  }

  private nodeInfo(node: GraphNode, mode: ModeDef) {
    const ports = portsOf(node, mode);
    return {
      nodeId: node.id,
      type: node.type,
      subModelId: node.subModelId,
      mode: mode.category,
      position: node.position,
      inputPorts: ports.inputs.map((p) => p.handle),
      outputPorts: ports.outputs.map((p) => p.handle),
      inputsSet: Object.keys(node.data),
    };
  }

  async addNode(accountId: string, id: string, b: Static<typeof AddNodeBody>) {
    const { model, mode } = this.resolveMode(b.nodeType, b.subModelId, b.mode);
    const out = await this.mutate(accountId, id, (_row, graph) => {
      if (graph.nodes.length >= MAX_WORKFLOW_NODES) throw new AppError('TOO_MANY_NODES', `a workflow has at most ${MAX_WORKFLOW_NODES} nodes`);
      const column = b.column ?? 1;
      // The Response node does not take a row: it moves to the right of the last node (below).
      const position = b.position ?? positionFor(column, b.row ?? firstFreeRow(column, graph.nodes.filter((n) => n.type !== 'response').map((n) => n.position)));
      const data = asFieldErrors('inputs', () => this.catalog.validateInput(mode, b.inputs ?? {}, { path: 'inputs', partial: true }));
      // Only what the caller set is stored; defaults apply at run time.
      for (const k of Object.keys(data)) if (!(b.inputs && k in b.inputs)) delete data[k];
      const node: GraphNode = { id: newId('node'), type: model.nodeType, subModelId: isMultiMode(model) ? mode.subModelId : null, label: b.label ?? model.name, position, data };
      graph.nodes.push(node);
      keepResponseRight(graph, node);
      return node;
    });
    return this.nodeInfo(out.result, mode);
  }

  async patchNode(accountId: string, id: string, nodeId: string, b: Static<typeof PatchNodeBody>) {
    const out = await this.mutate(accountId, id, (_row, graph) => {
      const node = graph.nodes.find((n) => n.id === nodeId);
      if (!node) throw new AppError('NOT_FOUND', `node ${nodeId} not found in this workflow`);
      if (node.type === 'request' || node.type === 'response') {
        if (b.inputs || b.subModelId || b.mode) throw new FieldError('VALIDATION_ERROR', `the ${node.type} node has no inputs to set`, false, [{ path: 'inputs', message: 'not allowed on this node' }]);
      } else {
        let mode = this.modeOf(node)!;
        if (b.subModelId !== undefined || b.mode !== undefined) {
          mode = this.resolveMode(node.type, b.subModelId, b.mode).mode;
          node.subModelId = this.catalog.model(node.type)!.modes.length > 1 ? mode.subModelId : null;
        }
        if (b.inputs) {
          const merged: Record<string, unknown> = { ...node.data };
          for (const [k, v] of Object.entries(b.inputs)) {
            if (v === null) delete merged[k];
            else merged[k] = v;
          }
          asFieldErrors('inputs', () => this.catalog.validateInput(mode, merged, { path: 'inputs', partial: true }));
          node.data = merged;
        }
      }
      if (b.position) node.position = b.position;
      if (b.label !== undefined) node.label = b.label;
      return node;
    });
    const node = out.result;
    return { nodeId: node.id, type: node.type, subModelId: node.subModelId, data: node.data, inputsSet: Object.keys(node.data) };
  }

  async deleteNode(accountId: string, id: string, nodeId: string): Promise<void> {
    await this.mutate(accountId, id, (_row, graph) => {
      const node = graph.nodes.find((n) => n.id === nodeId);
      if (!node) throw new AppError('NOT_FOUND', `node ${nodeId} not found in this workflow`);
      if (node.type === 'request' || node.type === 'response') throw new FieldError('VALIDATION_ERROR', `the ${node.type} node cannot be deleted`, false, [{ path: 'nodeId', message: 'is a built-in node' }]);
      graph.nodes = graph.nodes.filter((n) => n.id !== nodeId);
      graph.edges = graph.edges.filter((e) => e.source !== nodeId && e.target !== nodeId);
    });
  }

  async addEdge(accountId: string, id: string, b: Static<typeof AddEdgeBody>) {
    const out = await this.mutate(accountId, id, (_row, graph) => {
      const src = graph.nodes.find((n) => n.id === b.sourceNodeId);
      const dst = graph.nodes.find((n) => n.id === b.targetNodeId);
      const edge: GraphEdge = { id: newId('edge'), source: b.sourceNodeId, sourceHandle: canonicalHandle(src?.type, b.sourceHandle), target: b.targetNodeId, targetHandle: b.targetHandle };
      graph.edges.push(edge);
      const sType = src ? portsOf(src, this.modeOf(src)).outputs.find((p) => p.handle === edge.sourceHandle)?.dataType : undefined;
      const tType = dst ? portsOf(dst, this.modeOf(dst)).inputs.find((p) => p.handle === b.targetHandle)?.dataType : undefined;
      return { edge, dataTypes: { source: sType ?? null, target: tType ?? null } };
    });
    const { edge, dataTypes } = out.result;
    return { edgeId: edge.id, source: edge.source, sourceHandle: edge.sourceHandle, target: edge.target, targetHandle: edge.targetHandle, dataTypes };
  }

  async deleteEdge(accountId: string, id: string, edgeId: string): Promise<void> {
    await this.mutate(accountId, id, (_row, graph) => {
      if (!graph.edges.some((e) => e.id === edgeId)) throw new AppError('NOT_FOUND', `edge ${edgeId} not found in this workflow`);
      graph.edges = graph.edges.filter((e) => e.id !== edgeId);
    });
  }

  /**
   * Clears the node cache of a workflow so its next run recomputes: entries its runs created, and entries
   * its runs were served from. Returns how many entries were removed.
   */
  async clearCache(accountId: string, idOrSlug: string): Promise<{ workflowId: string; cleared: number }> {
    const row = await this.getRow(accountId, idOrSlug);
    const cleared = await countOf(
      this.db, q.CLEAR_WORKFLOW_CACHE,
      [accountId, row.id],
    );
    return { workflowId: row.id, cleared };
  }

  async systemList() {
    const rows = await rowsOf<q.WorkflowRow>(this.db, q.SYSTEM_WORKFLOWS);
    return {
      items: rows.map((r) => {
        const v = workflowView(r);
        return {
          id: v.id, slug: v.slug!, name: v.name, description: v.description, category: r.category ?? 'general',
          nodeTypes: [...new Set(v.nodes.filter((n) => n.type !== 'request' && n.type !== 'response').map((n) => n.type))],
          requestFields: v.requestFields,
        };
      }),
    };
  }

  async duplicate(accountId: string, idOrSlug: string) {
    const row = await this.getRow(accountId, idOrSlug);
    const r = await rowOf<q.WorkflowRow>(
      this.db, q.INSERT_WORKFLOW,
      [newId('wf'), accountId, `${row.name} (copy)`.slice(0, 200), row.description, copyGraph(row.graph)],
    );
    return workflowView(r!);
  }
}
