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
export function nextStep(graph: Graph, statuses: ReadonlyMap<string, string>, nodeId: string): 'skip' | 'ready' | 'wait' | 'none' {
  if (statuses.get(nodeId) !== 'PENDING') return 'none';
  const preds = predecessorsOf(graph, nodeId).filter((p) => statuses.has(p)).map((p) => statuses.get(p)!);
  if (preds.some((s) => DID_NOT_COMPLETE.has(s))) return 'skip';
  return preds.every((s) => s === 'COMPLETED') ? 'ready' : 'wait';
}

/** Distinct sources of the edges into `nodeId`. */
export function predecessorsOf(graph: Graph, nodeId: string): string[] {
  return [...new Set(graph.edges.filter((e) => e.target === nodeId).map((e) => e.source))];
}

/** True when every node has ended (the run can be finished). */
export function allEnded(statuses: Iterable<string>): boolean {
  for (const s of statuses) if (!TERMINAL.has(s)) return false;
  return true;
}
