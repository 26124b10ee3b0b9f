import type { Graph } from '../workflows/types.js';
import type { NodeRunState } from './runViews.js';

/**
 * What the browser draws for a workflow graph: nodes at the positions the workflow stores (our own
 * column layout, src/workflows/layout.ts), edges labelled with their ports, and, for a run, each node's
 * status. Request and Response carry no node run, so their status follows the run's. Pure.
 */
export interface GraphNodeElement {
  id: string;
  label: string;
  type: string;
  x: number;
  y: number;
  status: string | null;
  cached: boolean;
}

export interface GraphEdgeElement {
  id: string;
  source: string;
  target: string;
  label: string;
}

export type NodeRunLike = NodeRunState;

export interface NodeState {
  id: string;
  status: string;
  cached: boolean;
  /** What the node was charged so far (0 until it completes). */
  actualCredits: number;
}

/**
 * A node's display name: its own label, else its model's name (system workflows store no labels), else
 * the raw type. `modelName` looks a nodeType up in the catalog.
 */
export function nodeLabel(node: { type: string; label: string | null }, modelName: (type: string) => string | undefined): string {
  if (node.label) return node.label;
  if (node.type === 'request') return 'Request';
  if (node.type === 'response') return 'Response';
  return modelName(node.type) ?? node.type;
}

/** The graph with every node's label filled in by nodeLabel. */
export function withLabels(graph: Graph, modelName: (type: string) => string | undefined): Graph {
  return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, label: nodeLabel(n, modelName) })) };
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELED']);

export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

function builtInStatus(type: string, runStatus: string): string {
  if (type === 'request') return runStatus === 'QUEUED' ? 'QUEUED' : runStatus === 'CANCELED' ? 'CANCELED' : 'COMPLETED';
  // The response node is reached when the run completes.
  if (runStatus === 'COMPLETED' || runStatus === 'FAILED' || runStatus === 'CANCELED') return runStatus;
  return 'PENDING';
}

/** Each node's status in a run: from its node run, or derived from the run for Request and Response. */
export function nodeStates(graph: Graph, runStatus: string, nodeRuns: NodeRunLike[]): NodeState[] {
  const byId = new Map(nodeRuns.map((n) => [n.nodeId, n]));
  return graph.nodes.map((n) => {
    const nr = byId.get(n.id);
    if (nr) return { id: n.id, status: nr.status, cached: nr.cached, actualCredits: Number(nr.chargedMicrocredits ?? 0) };
    if (n.type === 'request' || n.type === 'response') return { id: n.id, status: builtInStatus(n.type, runStatus), cached: false, actualCredits: 0 };
    return { id: n.id, status: 'PENDING', cached: false, actualCredits: 0 };
  });
}

export function graphElements(graph: Graph, run?: { status: string; nodeRuns: NodeRunLike[] }): { nodes: GraphNodeElement[]; edges: GraphEdgeElement[] } {
  const states = run ? new Map(nodeStates(graph, run.status, run.nodeRuns).map((s) => [s.id, s])) : undefined;
  return {
    nodes: graph.nodes.map((n) => {
      const s = states?.get(n.id);
      return {
        id: n.id,
        label: n.label ?? n.type,
        type: n.type,
        x: n.position.x,
        y: n.position.y,
        status: s?.status ?? null,
        cached: s?.cached ?? false,
      };
    }),
    edges: graph.edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      label: `${e.sourceHandle.replace(/^out:/, '')} → ${e.targetHandle.replace(/^in:/, '')}`,
    })),
  };
}
