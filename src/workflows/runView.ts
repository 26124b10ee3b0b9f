import type { FileService } from '../files/service.js';
import { renderOutput } from '../files/render.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The workflow run record (shape: src/contract/runs.ts): `outputs` is what reached the Response node, by source node and handle. */
export async function workflowRunView(files: FileService, run: any, nodes: any[], opts: { details: boolean } = { details: true }) {
  const outputs: Record<string, unknown> = {};
  for (const [nodeId, handles] of Object.entries((run.output ?? {}) as Record<string, Record<string, unknown>>)) {
    outputs[nodeId] = (await renderOutput(files, handles as never)).output;
  }
  const order = new Map(((run.graph?.nodes ?? []) as Array<{ id: string }>).map((n, i) => [n.id, i]));
  const nodeRuns = await Promise.all(nodes.sort((a, b) => (order.get(a.node_id) ?? 0) - (order.get(b.node_id) ?? 0)).map(async (n) => {
    const out = opts.details ? await renderOutput(files, n.output) : { output: undefined };
    const inp = opts.details ? (await renderOutput(files, n.input)).output : undefined;
    return {
      nodeId: n.node_id,
      nodeType: n.node_type,
      subModelId: n.sub_model_id,
      status: n.status,
      cached: n.cached,
      ...(opts.details ? { input: inp, output: out.output } : {}),
      logs: n.logs,
      error: n.error,
      ...(n.error_code ? { errorCode: n.error_code as string } : {}),
      startedAt: iso(n.started_at),
      finishedAt: iso(n.finished_at),
      estimatedCredits: Number(n.estimated_microcredits),
      actualCredits: Number(n.charged_microcredits),
      /** The node's charge: price(model, the input it ran with), 0 when cached, skipped or failed. */
      creditUsed: Number(n.charged_microcredits),
      ...(n.route ? { route: n.route } : {}),
    };
  }));
  const actual = run.status === 'COMPLETED' || run.status === 'FAILED' || run.status === 'CANCELED'
    ? Number(run.charged_microcredits)
    : nodes.reduce((s, n) => s + Number(n.charged_microcredits), 0);
  return {
    id: run.id,
    status: run.status,
    workflowId: run.workflow_id,
    triggerRunId: null,
    createdAt: iso(run.created_at),
    startedAt: iso(run.started_at),
    finishedAt: iso(run.finished_at),
    error: run.error,
    context: null,
    outputs,
    estimatedCredits: Number(run.estimated_microcredits),
    actualCredits: actual,
    ...(run.priority !== undefined && run.priority !== null ? { priority: Number(run.priority) } : {}),
    nodeRuns,
  };
}
