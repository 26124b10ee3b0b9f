import type { Graph } from './types.js';

/** Node statuses of a workflow run (node_runs.status). */
export type NodeStatus = 'PENDING' | 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'SKIPPED' | 'CANCELED';

const TERMINAL = new Set<string>(['COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED']);
const DID_NOT_COMPLETE = new Set<string>(['FAILED', 'SKIPPED', 'CANCELED']);

/**
 * The workflow ready-set, pure: what a PENDING node should do given its predecessors' statuses. Nodes
 * without a status (request, response) are not predecessors that count. `skip`: an upstream node did not
 * complete; `ready`: every predecessor completed; `wait`: some are still under way; `none`: not pending.
 */
export function nextStep(graph: Graph, statuses: ReadonlyMap<string, string>, nodeId: string, index?: PredecessorIndex): 'skip' | 'ready' | 'wait' | 'none' {
  if (statuses.get(nodeId) !== 'PENDING') return 'none';
  const preds = (index?.get(nodeId) ?? predecessorsOf(graph, nodeId)).filter((p) => statuses.has(p)).map((p) => statuses.get(p)!);
  if (preds.some((s) => DID_NOT_COMPLETE.has(s))) return 'skip';
  return preds.every((s) => s === 'COMPLETED') ? 'ready' : 'wait';
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

/** True when every node has ended (the run can be finished). */
export function allEnded(statuses: Iterable<string>): boolean {
  for (const s of statuses) if (!TERMINAL.has(s)) return false;
  return true;
}
