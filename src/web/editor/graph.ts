import type { Edge, Node } from '@xyflow/react';
import dagre from '@dagrejs/dagre';
import type { ModeDef } from '../../catalog/types.js';
import { portsOf, type Port } from '../../workflows/ports.js';
import type { Graph, GraphEdge, GraphNode, RequestField } from '../../workflows/types.js';
import { validateGraph, type ModeLookup } from '../../workflows/validate.js';
import { positionFor } from '../../workflows/layout.js';
import type { CatalogMode, CatalogModel } from './api.js';

/** The mode a node without subModelId runs: the model's default (the first when the list does not say). */
export function defaultModeOf(model: CatalogModel): CatalogMode | undefined {
  return model.modes.find((m) => m.subModelId === model.defaultSubModelId) ?? model.modes[0];
}

/** A canvas node carries its workflow node (without position: the canvas owns that). */
export type NodeData = { g: GraphNode };
export type FlowNode = Node<NodeData>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Ids in the server's shape (`node_…`, `edge_…`), made here so the saved graph keeps them. */
export function newId(kind: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  let out = '';
  for (const b of bytes) {
    if (b < 248) out += BASE62[b % 62];
    if (out.length === 20) break;
  }
  return `${kind}_${out}`;
}

export class Catalog {
  readonly byType: Map<string, CatalogModel>;
  constructor(readonly models: CatalogModel[]) {
    this.byType = new Map(models.map((m) => [m.nodeType, m]));
  }

  mode(node: Pick<GraphNode, 'type' | 'subModelId'>): CatalogMode | undefined {
    const model = this.byType.get(node.type);
    if (!model) return undefined;
    return node.subModelId ? model.modes.find((m) => m.subModelId === node.subModelId) : defaultModeOf(model);
  }

  /** The same lookup the workflow service gives the validator, over the catalog the page loaded. */
  readonly lookup: ModeLookup = (node) => {
    const model = this.byType.get(node.type);
    if (!model) return { error: `unknown model ${node.type}` };
    if (model.deprecated) return { error: `${node.type} is retired; use ${model.deprecated.replacement}` };
    const mode = node.subModelId ? model.modes.find((m) => m.subModelId === node.subModelId) : defaultModeOf(model);
    if (!mode) return { error: `${node.type} has no sub-model ${node.subModelId}` };
    return { mode: mode as unknown as ModeDef };
  };

  ports(node: GraphNode): { inputs: Port[]; outputs: Port[] } {
    return portsOf(node, this.mode(node) as unknown as ModeDef | undefined);
  }
}

export function toGraph(nodes: FlowNode[], edges: Edge[]): Graph {
  return {
    nodes: nodes.map((n) => ({ ...n.data.g, position: { x: Math.round(n.position.x), y: Math.round(n.position.y) } })),
    edges: edges.map((e) => ({ id: e.id, source: e.source, sourceHandle: e.sourceHandle ?? '', target: e.target, targetHandle: e.targetHandle ?? '' })),
  };
}

export function flowNode(g: GraphNode, readOnly: boolean): FlowNode {
  const builtIn = g.type === 'request' || g.type === 'response';
  const { position, ...rest } = g;
  return {
    id: g.id, type: builtIn ? g.type : 'model', position: { ...position }, data: { g: { ...rest, position } },
    deletable: !builtIn && !readOnly, draggable: !readOnly, connectable: !readOnly,
  };
}

export function flowEdge(e: GraphEdge): Edge {
  return { id: e.id, source: e.source, sourceHandle: e.sourceHandle, target: e.target, targetHandle: e.targetHandle };
}

export function fromGraph(graph: Graph, readOnly: boolean): { nodes: FlowNode[]; edges: Edge[] } {
  return { nodes: graph.nodes.map((n) => flowNode(n, readOnly)), edges: graph.edges.map(flowEdge) };
}

/** A new workflow: a Request node with one text field and a Response node, as quick-create makes them. */
export function starterGraph(): Graph {
  const fields: RequestField[] = [{ id: 'prompt', name: 'prompt', type: 'text' }];
  return {
    nodes: [
      { id: newId('node'), type: 'request', subModelId: null, label: 'Request', position: positionFor(0, 0), data: { fields } },
      { id: newId('node'), type: 'response', subModelId: null, label: 'Response', position: positionFor(2, 0), data: {} },
    ],
    edges: [],
  };
}

const key = (e: { nodeId: string; port?: string; message: string }) => `${e.nodeId}\u0000${e.port ?? ''}\u0000${e.message}`;

/**
 * Checks one more edge with the API's validator: the problems the edge adds (type mismatch, a second edge
 * into a single-input port, a cycle, an edge from a node to itself), each in the validator's own words.
 */
export function edgeProblems(catalog: Catalog, graph: Graph, edge: GraphEdge): string[] {
  const before = new Set(validateGraph(graph, catalog.lookup, { runnable: false }).map(key));
  const after = validateGraph({ nodes: graph.nodes, edges: [...graph.edges, edge] }, catalog.lookup, { runnable: false });
  return after.filter((e) => !before.has(key(e))).map((e) => `${e.nodeId === '*' ? 'workflow' : `node ${e.nodeId}`}${e.port ? ` port ${e.port}` : ''}: ${e.message}`);
}

/** Every problem of the graph as saving would report it (runnable: it needs its Request and Response). */
export function graphProblems(catalog: Catalog, graph: Graph) {
  return validateGraph(graph, catalog.lookup, { runnable: true });
}

/** Left-to-right layered layout (dagre), keeping each node's measured size. */
export function autoLayout(nodes: FlowNode[], edges: Edge[]): FlowNode[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 90, marginx: 40, marginy: 40 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.measured?.width ?? 260, height: n.measured?.height ?? 160 });
  for (const e of edges) g.setEdge(e.source, e.target);
  dagre.layout(g);
  return nodes.map((n) => {
    const p = g.node(n.id);
    const w = n.measured?.width ?? 260;
    const h = n.measured?.height ?? 160;
    return { ...n, position: { x: Math.round(p.x - w / 2), y: Math.round(p.y - h / 2) } };
  });
}

export function formatMicro(n: number): string {
  return `${String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} µcr`;
}

const NAMED_ACCENTS: Record<string, string> = {
  slate: '#64748b', gray: '#6b7280', zinc: '#71717a', stone: '#78716c', red: '#ef4444', orange: '#f97316', amber: '#f59e0b',
  yellow: '#eab308', lime: '#84cc16', green: '#22c55e', emerald: '#10b981', teal: '#14b8a6', cyan: '#06b6d4', sky: '#0ea5e9',
  blue: '#3b82f6', indigo: '#6366f1', violet: '#8b5cf6', purple: '#a855f7', fuchsia: '#d946ef', pink: '#ec4899', rose: '#f43f5e',
};

/** A model's accent (a hex colour or a palette name in the catalog) as a CSS colour. */
export function accentColor(accent: string | undefined): string {
  if (accent && /^#[0-9a-f]{3,8}$/i.test(accent)) return accent;
  return NAMED_ACCENTS[accent ?? ''] ?? '#6366f1';
}
