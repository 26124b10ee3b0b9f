import { AppError } from '../errors.js';
import type { Catalog } from '../catalog/catalog.js';
import { estimateNodes } from '../catalog/estimate.js';
import { nodeInput } from './inputs.js';
import type { Graph, GraphNode } from './types.js';

/**
 * A workflow run's estimate at creation: each node priced with its own values plus what the Request node
 * feeds it (known now); values arriving from other nodes are priced at their defaults until the node is
 * ready. A node whose request-fed input does not validate is priced on its own values (it fails when it runs).
 */
export function estimateWorkflowNodes(catalog: Catalog, graph: Graph, nodes: GraphNode[], requestValues: Record<string, unknown>): Array<{ microcredits: number }> {
  const plain = estimateNodes(catalog, nodes.map((n) => ({ type: n.type, subModelId: n.subModelId, data: n.data })), 'nodes');
  return nodes.map((n, i) => {
    const mode = catalog.resolveNode(n.type, n.subModelId, { requireSubModel: false }).mode;
    const fed = nodeInput({ nodes: graph.nodes, edges: graph.edges.filter((e) => graph.nodes.find((x) => x.id === e.source)?.type === 'request') } as Graph, n, mode, requestValues, new Map());
    try {
      return estimateNodes(catalog, [{ type: n.type, subModelId: n.subModelId, data: fed }], `nodes[${i}]`)[0]!;
    } catch (err) {
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return plain[i]!;
      throw err;
    }
  });
}
