/** The kinds a settled run is observed as: a model run, a workflow run, or one node of a workflow. */
export type RunKind = 'node' | 'workflow' | 'workflow_node';

/**
 * What the executors of both run kinds (runs/execution.ts, workflows/executor.ts) tell when a run or a
 * workflow node settles. ops/metrics.ts Metrics is one; the composition root hands it in, so that the
 * run kinds do not import ops/, which stands above them.
 */
export interface RunObserver {
  observeRun(kind: RunKind, model: string, status: string, startedAt: Date | null, finishedAt: Date | null): void;
}
