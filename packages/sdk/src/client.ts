import { BatchesApi } from './batches.js';
import { CreditsApi } from './credits.js';
import { FilesApi } from './files.js';
import { EstimatesApi, ModelsApi } from './models.js';
import { NodeRunsApi } from './nodeRuns.js';
import type { RunHandle } from './runHandle.js';
import { Transport, type ClientOptions } from './transport.js';
import type { NodeRun, RunModelParams, RunWorkflowParams, WorkflowRun } from './types-runs.js';
import { WebhooksApi } from './webhooksApi.js';
import { WorkflowRunsApi } from './workflowRuns.js';
import { WorkflowsApi } from './workflows.js';

/**
 * The Atelier client. Endpoints are grouped by resource (`client.models.search()`,
 * `client.workflows.addNode()` …); `runModel` and `runWorkflow` are the shortcuts most callers need.
 */
export class Atelier {
  readonly models: ModelsApi;
  readonly estimates: EstimatesApi;
  readonly credits: CreditsApi;
  readonly nodeRuns: NodeRunsApi;
  readonly batches: BatchesApi;
  readonly workflows: WorkflowsApi;
  readonly runs: WorkflowRunsApi;
  readonly webhooks: WebhooksApi;
  readonly files: FilesApi;

  constructor(opts: ClientOptions) {
    const t = new Transport(opts);
    this.models = new ModelsApi(t);
    this.estimates = new EstimatesApi(t);
    this.credits = new CreditsApi(t);
    this.nodeRuns = new NodeRunsApi(t);
    this.batches = new BatchesApi(t);
    this.workflows = new WorkflowsApi(t);
    this.runs = new WorkflowRunsApi(t);
    this.webhooks = new WebhooksApi(t);
    this.files = new FilesApi(t);
  }

  /** Starts a model run; `await (await client.runModel(...)).wait()` gives the finished run. */
  runModel(nodeType: string, params: RunModelParams): Promise<RunHandle<NodeRun>> {
    return this.nodeRuns.run(nodeType, params);
  }

  /** Starts a workflow run by id or system slug. */
  runWorkflow(workflowId: string, params: RunWorkflowParams = {}): Promise<RunHandle<WorkflowRun>> {
    return this.runs.run(workflowId, params);
  }

  systemWorkflows() {
    return this.workflows.systemList();
  }
}
