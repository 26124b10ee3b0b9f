import type { Graph, GraphNode } from './types.js';

/**
 * Ports and node values renamed when models took the hosted interface (issue 25, CHANGELOG.md). Workflows
 * saved before keep working: whenever a graph is read or written (workflows/service.ts, runPlan.ts) an
 * edge from an old output handle is moved to the new one, and a node's old input values and the edges
 * into them are moved to the new inputs (docs/api.md, "Output keys").
 */
export const LEGACY_OUTPUT_HANDLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  crop_image: { 'out:result': 'out:image_url' },
  merge_videos: { 'out:result': 'out:video_url' },
  extract_audio: { 'out:result': 'out:audio_url' },
};

/** Old input names → new ones; `null`: the input is gone and its value is dropped (the model now decides). */
export const LEGACY_INPUTS: Readonly<Record<string, Readonly<Record<string, string | null>>>> = {
  crop_image: { left: 'x_px', top: 'y_px', width: 'width_px', height: 'height_px' },
  merge_videos: { width: null, height: null, fps: null },
};

/** An own entry of a table (never the prototype's: node types and handles are caller-chosen strings). */
function own<T>(table: Readonly<Record<string, T>> | undefined, key: string | undefined): T | undefined {
  return table && key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The current name of an output handle of a node of this type. Pure. */
export function canonicalHandle(nodeType: string | undefined, handle: string): string {
  return own(own(LEGACY_OUTPUT_HANDLES, nodeType), handle) ?? handle;
}

function upgradeNode(node: GraphNode): GraphNode {
  const renames = own(LEGACY_INPUTS, node.type);
  if (!renames || !node.data || typeof node.data !== 'object') return node;
  const old = Object.keys(node.data).filter((k) => Object.hasOwn(renames, k));
  if (old.length === 0) return node;
  const data: Record<string, unknown> = { ...node.data };
  for (const k of old) {
    const to = renames[k];
    if (to && data[to] === undefined) data[to] = data[k];
    delete data[k];
  }
  return { ...node, data };
}

/** The graph with every legacy handle and input moved to its current name; the same object when none is used. Pure. */
export function upgradeGraph<G extends Graph>(graph: G): G {
  if (!graph || !Array.isArray(graph.nodes) || !Array.isArray(graph.edges)) return graph;
  const types = new Map(graph.nodes.map((n) => [n.id, n.type]));
  let changed = false;
  const nodes = graph.nodes.map((n) => {
    const u = upgradeNode(n);
    if (u !== n) changed = true;
    return u;
  });
  const edges = graph.edges.flatMap((e) => {
    const sourceHandle = canonicalHandle(types.get(e.source), e.sourceHandle);
    const input = typeof e.targetHandle === 'string' && e.targetHandle.startsWith('in:') ? e.targetHandle.slice(3) : undefined;
    const to = own(own(LEGACY_INPUTS, types.get(e.target)), input);
    if (to === null) {
      changed = true;
      return [];
    }
    const targetHandle = to ? `in:${to}` : e.targetHandle;
    if (sourceHandle === e.sourceHandle && targetHandle === e.targetHandle) return [e];
    changed = true;
    return [{ ...e, sourceHandle, targetHandle }];
  });
  return changed ? { ...graph, nodes, edges } : graph;
}
