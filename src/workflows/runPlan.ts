import type { WebhookConfig } from '../events/types.js';
import { upgradeGraph } from './legacyGraph.js';
import type { Graph, GraphNode } from './types.js';

/**
 * What never changes while a workflow run runs (runs/queries/workflowRuns.ts RUN_PLAN: its graph snapshot,
 * owner, request values, webhook and Cancel-After), with the graph's indexes: the executor reads it once per
 * run and process rather than with every node, and it is never stale, since none of it is ever updated.
 */
export interface RunPlan {
  runId: string;
  accountId: string;
  workflowId: string;
  webhook: WebhookConfig | null;
  /** The Request node's values. */
  input: Record<string, unknown>;
  cancelAfter: Date | null;
  /** The W3C traceparent of the span that created the run (tracing/), or null: its nodes' spans continue it. */
  traceParent: string | null;
  graph: Graph;
  nodes: ReadonlyMap<string, GraphNode>;
  /** The nodes that run (not request, not response), in graph order, and their ids. */
  modelNodes: GraphNode[];
  runs: ReadonlySet<string>;
  preds: PredecessorIndex;
  /** Each node's successors that run, in graph order. */
  succs: ReadonlyMap<string, GraphNode[]>;
}

/** The plan of a run from its RUN_PLAN row. Pure. */
export function runPlan(runId: string, row: { account_id: string; workflow_id: string; webhook: WebhookConfig | null; input: Record<string, unknown> | null; cancel_after: Date | null; graph: Graph; trace_parent?: string | null }): RunPlan {
  // A run started before an output handle was renamed keeps its snapshot: read it with the new names.
  const graph = upgradeGraph(row.graph);
  const modelNodes = graph.nodes.filter((n) => n.type !== 'request' && n.type !== 'response');
  const preds = predecessorIndex(graph);
  return {
    runId,
    accountId: row.account_id,
    workflowId: row.workflow_id,
    webhook: row.webhook,
    input: row.input ?? {},
    cancelAfter: row.cancel_after,
    traceParent: row.trace_parent ?? null,
    graph,
    nodes: new Map(graph.nodes.map((n) => [n.id, n])),
    modelNodes,
    runs: new Set(modelNodes.map((n) => n.id)),
    preds,
    succs: new Map(graph.nodes.map((n) => [n.id, modelNodes.filter((m) => preds.get(m.id)?.includes(n.id))])),
  };
}

/** Distinct sources of the edges into `nodeId`. */
export function predecessorsOf(graph: Graph, nodeId: string): string[] {
  return [...new Set(graph.edges.filter((e) => e.target === nodeId).map((e) => e.source))];
}

/** Every node's distinct predecessors, computed once per graph: an advance asks for them node after node. */
export type PredecessorIndex = ReadonlyMap<string, string[]>;

export function predecessorIndex(graph: Graph): PredecessorIndex {
  const sets = new Map<string, Set<string>>(graph.nodes.map((n) => [n.id, new Set<string>()]));
  for (const e of graph.edges) sets.get(e.target)?.add(e.source);
  return new Map([...sets].map(([id, s]) => [id, [...s]]));
}
