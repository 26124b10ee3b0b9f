import type { Catalog } from '../catalog/catalog.js';
import type { ModeDef } from '../catalog/types.js';
import { cacheKey, mapFileRefs, nodeInput } from './inputs.js';
import { nodePriceIfAny } from './nodeCharge.js';
import type { RunPlan } from './runPlan.js';
import type { GraphNode } from './types.js';

/** A ready node with everything starting it needs: its input (validated), its cache key and its price. */
export interface PreparedNode {
  ok: true;
  node: GraphNode;
  mode: ModeDef;
  /** The input as stored (files as `{ file: id }` references), which the cache key and the node row take. */
  withRefs: Record<string, unknown>;
  /** The input validated with files as URLs, as the engine sees it. */
  input: Record<string, unknown>;
  key: string;
  /** Undefined when the input cannot be priced (the charge then fails the node: nodeCharge.ts). */
  price: bigint | undefined;
}

/** A ready node whose input does not validate: it fails with this message. */
export interface UnpreparedNode {
  ok: false;
  withRefs: Record<string, unknown>;
  error: string;
}

/** How files in a node's input are seen: their URL (validation) and their content hashes (the cache key). */
export interface NodeFiles {
  url(fileId: string): string;
  /** The content hash of each file the input refers to; undefined to give up on a node with files. */
  shas(withRefs: Record<string, unknown>): Promise<Map<string, string> | undefined>;
}

/**
 * The one way to prepare a ready node (WorkflowExecutor's advance and the lease a settle makes alike):
 * resolve its input from the request values and its predecessors' outputs, validate it, take its cache
 * key (node type, the graph's sub-model, inputs, files by content hash) and price it. Undefined when
 * `files.shas` gives up.
 */
export async function prepareNode(catalog: Catalog, plan: RunPlan, node: GraphNode, outputs: Map<string, Record<string, unknown>>, files: NodeFiles): Promise<PreparedNode | UnpreparedNode | undefined> {
  const mode = catalog.resolveNode(node.type, node.subModelId, { requireSubModel: false }).mode;
  const withRefs = nodeInput(plan.graph, node, mode, plan.input, outputs);
  let input: Record<string, unknown>;
  try {
    // Validate with files as URLs (as the engine will see them); keep references for storage and the cache key.
    input = catalog.validateInput(mode, mapFileRefs(withRefs, (id) => files.url(id)), { path: `nodes.${node.id}.input` });
  } catch (err) {
    return { ok: false, withRefs, error: (err as Error).message };
  }
  const shas = await files.shas(withRefs);
  if (!shas) return undefined;
  // node_runs.sub_model_id is the graph's, null when it has none: the key is the one earlier runs stored.
  const key = cacheKey(node.type, node.subModelId ?? null, { ...input, ...withRefs }, (id) => shas.get(id) ?? id);
  return { ok: true, node, mode, withRefs, input, key, price: nodePriceIfAny(mode, input) };
}

/** True when the input refers to stored files. Pure. */
export function hasFiles(withRefs: Record<string, unknown>): boolean {
  let files = false;
  mapFileRefs(withRefs, () => (files = true));
  return files;
}
