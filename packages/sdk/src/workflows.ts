import type { Transport } from './transport.js';
import type { Page } from './types-common.js';
import type {
  AddEdgeParams, AddedEdge, AddedNode, AddNodeParams, CreateWorkflowParams, QuickCreateWorkflowParams, SystemWorkflow,
  UpdatedNode, UpdateNodeParams, Workflow, WorkflowListQuery, WorkflowSummary,
} from './types-workflows.js';

const seg = encodeURIComponent;

/** Workflow graphs. Creates are not retried on 5xx (no Idempotency-Key on these endpoints). */
export class WorkflowsApi {
  constructor(private readonly t: Transport) {}

  create(params: CreateWorkflowParams): Promise<Workflow> {
    return this.t.request('POST', '/v1/workflows', { body: params });
  }

  /** A Request node with the given fields (default: one `prompt` text field) and a Response node. */
  quickCreate(params: QuickCreateWorkflowParams = {}): Promise<Workflow> {
    return this.t.request('POST', '/v1/workflows/quick-create', { body: params });
  }

  /** By id, or a system workflow's slug. */
  get(id: string): Promise<Workflow> {
    return this.t.request('GET', `/v1/workflows/${seg(id)}`);
  }

  list(q: WorkflowListQuery = {}): Promise<Page<WorkflowSummary>> {
    return this.t.request('GET', '/v1/workflows', { query: { ...q } });
  }

  update(id: string, params: { name?: string; description?: string }): Promise<Workflow> {
    return this.t.request('PATCH', `/v1/workflows/${seg(id)}`, { body: params });
  }

  delete(id: string): Promise<void> {
    return this.t.request('DELETE', `/v1/workflows/${seg(id)}`);
  }

  addNode(id: string, params: AddNodeParams): Promise<AddedNode> {
    return this.t.request('POST', `/v1/workflows/${seg(id)}/nodes`, { body: params });
  }

  updateNode(id: string, nodeId: string, params: UpdateNodeParams): Promise<UpdatedNode> {
    return this.t.request('PATCH', `/v1/workflows/${seg(id)}/nodes/${seg(nodeId)}`, { body: params });
  }

  deleteNode(id: string, nodeId: string): Promise<void> {
    return this.t.request('DELETE', `/v1/workflows/${seg(id)}/nodes/${seg(nodeId)}`);
  }

  addEdge(id: string, params: AddEdgeParams): Promise<AddedEdge> {
    return this.t.request('POST', `/v1/workflows/${seg(id)}/edges`, { body: params });
  }

  deleteEdge(id: string, edgeId: string): Promise<void> {
    return this.t.request('DELETE', `/v1/workflows/${seg(id)}/edges/${seg(edgeId)}`);
  }

  /** A copy in your workspace (new ids, name + " (copy)"); works on system workflows by id or slug. */
  duplicate(id: string): Promise<Workflow> {
    return this.t.request('POST', `/v1/workflows/${seg(id)}/duplicate`);
  }

  /** Drops the node cache so the next run recomputes; `cleared` counts entries and in-progress cached runs. */
  clearCache(id: string): Promise<{ workflowId: string; cleared: number }> {
    return this.t.request('DELETE', `/v1/workflows/${seg(id)}/cache`);
  }

  systemList(): Promise<{ items: SystemWorkflow[] }> {
    return this.t.request('GET', '/v1/system-workflows');
  }
}
