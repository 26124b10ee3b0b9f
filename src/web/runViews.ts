// View objects of the web app's run pages: the one place that reads the run services' rows (snake_case, as
// the tables hold them); the pages and the live state are assembled from these.

/** A row of the runs list (runs/service.ts listAll). */
export interface RunListItem {
  id: string;
  kind: 'node' | 'workflow';
  nodeType: string | null;
  workflowId: string | null;
  workflowName: string | null;
  status: string;
  estimatedMicrocredits: bigint;
  chargedMicrocredits: bigint;
  nodeCount: number | null;
  cachedCount: number | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
}

export function runListItem(row: Record<string, any>): RunListItem {
  return {
    id: row.id,
    kind: row.kind === 'workflow' ? 'workflow' : 'node',
    nodeType: row.node_type ?? null,
    workflowId: row.workflow_id ?? null,
    workflowName: row.workflow_name ?? null,
    status: row.status,
    estimatedMicrocredits: row.estimated_microcredits,
    chargedMicrocredits: row.charged_microcredits,
    nodeCount: row.node_count ?? null,
    cachedCount: row.cached_count ?? null,
    startedAt: row.started_at ?? null,
    finishedAt: row.finished_at ?? null,
    createdAt: row.created_at,
  };
}

/** One workflow node's run, as the graph and the live state show it. */
export interface NodeRunState {
  nodeId: string;
  status: string;
  cached: boolean;
  chargedMicrocredits?: bigint | number | string | null;
}

export function nodeRunState(row: Record<string, any>): NodeRunState {
  return { nodeId: row.node_id, status: row.status, cached: row.cached, chargedMicrocredits: row.charged_microcredits };
}

/** What a run page needs of a run record, of either kind. */
export interface RunRecord {
  id: string;
  accountId: string;
  workflowId: string | null;
  status: string;
  graph: { nodes: any[]; edges: any[] } | null;
  output: Record<string, Record<string, unknown>> | null;
  chargedMicrocredits: bigint | number | string;
}

export function runRecord(row: Record<string, any>): RunRecord {
  return {
    id: row.id, accountId: row.account_id, workflowId: row.workflow_id ?? null, status: row.status,
    graph: row.graph ?? null, output: row.output ?? null, chargedMicrocredits: row.charged_microcredits,
  };
}
