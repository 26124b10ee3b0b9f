import type { Transport } from './transport.js';
import type { Page, PageQuery } from './types-common.js';
import type { DeprecatedModel, EstimateNode, ModelCatalog, ModelEntry, ModelPricing, ModelSchema, ModelSearchResult, NodeEstimate, WorkflowEstimate } from './types-models.js';

const seg = encodeURIComponent;

/** Model discovery: list, search, catalog, schema and pricing; and deprecated models. */
export class ModelsApi {
  constructor(private readonly t: Transport) {}

  list(): Promise<ModelEntry[]> {
    return this.t.request('GET', '/v1/models');
  }

  search(query?: string): Promise<ModelSearchResult> {
    return this.t.request('GET', '/v1/models/search', { query: { query } });
  }

  catalog(): Promise<ModelCatalog> {
    return this.t.request('GET', '/v1/models/catalog');
  }

  /** `modelId` is a subModelId, or a nodeType (which resolves to its default sub-model). */
  schema(modelId: string): Promise<ModelSchema> {
    return this.t.request('GET', `/v1/models/${seg(modelId)}/schema`);
  }

  pricing(modelId: string): Promise<ModelPricing> {
    return this.t.request('GET', `/v1/models/${seg(modelId)}/pricing`);
  }

  deprecated(): Promise<{ items: DeprecatedModel[] }> {
    return this.t.request('GET', '/v1/nodes/deprecated-models');
  }

  deprecatedRuns(nodeType: string, q: PageQuery = {}): Promise<Page<{ id: string; status: string; input: unknown; output: unknown; creditUsed: number; createdAt: string; finishedAt: string | null }> & { nodeType: string }> {
    return this.t.request('GET', `/v1/nodes/deprecated-models/${seg(nodeType)}/runs`, { query: { ...q } });
  }
}

/** Exact prices before running, from the same function that charges runs. Estimates are reads, so POST here is safe to retry. */
export class EstimatesApi {
  constructor(private readonly t: Transport) {}

  /** One node (`{ nodeType, subModelId?, data }`) or several. */
  node(node: { nodeType: string; subModelId?: string | null; data?: Record<string, unknown> } | { nodes: EstimateNode[] }): Promise<NodeEstimate> {
    return this.t.request('POST', '/v1/nodes/estimate-credits', { body: node, idempotent: true });
  }

  workflow(nodes: EstimateNode[]): Promise<WorkflowEstimate> {
    return this.t.request('POST', '/v1/workflows/estimate-credits', { body: { nodes }, idempotent: true });
  }
}
