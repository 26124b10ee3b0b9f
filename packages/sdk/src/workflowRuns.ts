import { streamEvents } from './nodeRuns.js';
import { RunHandle } from './runHandle.js';
import { runHeaders } from './runHeaders.js';
import type { Transport } from './transport.js';
import type { Page } from './types-common.js';
import type { RunCreated, RunStreamEvent, RunWorkflowParams, WorkflowRun, WorkflowRunListQuery } from './types-runs.js';

const seg = encodeURIComponent;

/** Workflow runs. */
export class WorkflowRunsApi {
  constructor(private readonly t: Transport) {}

  /** `workflowId` is a workflow id or a system workflow slug. */
  async run(workflowId: string, params: RunWorkflowParams = {}): Promise<RunHandle<WorkflowRun>> {
    const created = await this.t.request<RunCreated>('POST', '/v1/runs', {
      body: { workflowId, values: params.values, webhook: params.webhook },
      headers: runHeaders(params),
    });
    return new RunHandle(created.runId, created.status, created.estimatedCredits, () => this.get(created.runId), () => this.cancel(created.runId));
  }

  /** `inDetails: false` leaves out node runs' input and output. */
  get(runId: string, opts: { inDetails?: boolean } = {}): Promise<WorkflowRun> {
    return this.t.request('GET', `/v1/runs/${seg(runId)}`, { query: { inDetails: opts.inDetails } });
  }

  /** 1..100 ids; unknown ids are left out of the answer. */
  batch(ids: string[]): Promise<{ runs: WorkflowRun[] }> {
    return this.t.request('POST', '/v1/runs/batch', { body: { ids }, idempotent: true });
  }

  list(q: WorkflowRunListQuery = {}): Promise<Page<WorkflowRun>> {
    return this.t.request('GET', '/v1/runs', { query: { ...q } });
  }

  cancel(runId: string): Promise<WorkflowRun> {
    return this.t.request('POST', `/v1/runs/${seg(runId)}/cancel`, { idempotent: true });
  }

  async *events(runId: string, opts: { lastEventId?: string } = {}): AsyncGenerator<RunStreamEvent> {
    yield* streamEvents(this.t, `/v1/runs/${seg(runId)}/events`, opts.lastEventId);
  }
}
