import type { FileService } from '../files/service.js';

export { renderOutput, type StoredOutput } from '../files/render.js';
import { renderOutput } from '../files/render.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Where a queued run stands (queue/positions.ts), shown while it is QUEUED. */
export interface QueueStandingView {
  position: number | null;
  estimatedStartAt: string | null;
}

/** The standalone run record (shape: src/contract/runs.ts). */
export async function modelRunView(files: FileService, run: any, standing?: QueueStandingView) {
  const { output, files: fileViews } = await renderOutput(files, run.output);
  return {
    id: run.id as string,
    nodeType: run.node_type as string,
    subModelId: run.sub_model_id as string | null,
    status: run.status as string,
    input: run.input as Record<string, unknown>,
    output,
    files: fileViews,
    error: run.error as string | null,
    // A named failure only when there is one; error and userMessage are null by meaning while none.
    ...(run.error_code ? { errorCode: run.error_code as string } : {}),
    userMessage: userMessage(run),
    creditUsed: Number(run.charged_microcredits),
    estimatedCredits: Number(run.estimated_microcredits),
    progress: run.status === 'RUNNING' ? (run.progress ?? 0) : run.status === 'COMPLETED' ? 1 : run.progress,
    progressMessage: run.progress_message as string | null,
    createdAt: iso(run.created_at)!,
    startedAt: iso(run.started_at),
    finishedAt: iso(run.finished_at),
    // Routed models only (execution/routing.ts): the route that served the run and why others did not.
    ...(run.route ? { route: run.route as { served: string | null; skipped: Array<{ name: string; reason: string }> } } : {}),
    ...(run.priority !== undefined && run.priority !== null ? { priority: Number(run.priority) } : {}),
    ...(run.batch_id ? { batchId: run.batch_id as string } : {}),
    ...(run.status === 'QUEUED' && standing ? { queuePosition: standing.position, estimatedStartAt: standing.estimatedStartAt } : {}),
  };
}

function userMessage(run: any): string | null {
  switch (run.status) {
    case 'FAILED': return `The run failed and its ${Number(run.estimated_microcredits)} reserved microcredits were refunded: ${run.error ?? 'unknown error'}`;
    case 'CANCELED': return `The run was canceled${run.error ? ` (${run.error})` : ''}; nothing was charged.`;
    default: return null;
  }
}
