import type { Graph } from './types.js';

/**
 * Output handles renamed when models took the hosted interface (issue 25, CHANGELOG.md): these models
 * answered `result` and now answer the hosted output key. Workflows saved before keep working: an edge
 * from an old handle is rewritten to the new one whenever a graph is read or written (docs/api.md,
 * "Output keys"), so saved workflows, in-flight runs' graph snapshots and clients that still send the old
 * handle all run.
 */
export const LEGACY_OUTPUT_HANDLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  crop_image: { 'out:result': 'out:image_url' },
  merge_videos: { 'out:result': 'out:video_url' },
  extract_audio: { 'out:result': 'out:audio_url' },
};

/** The current name of an output handle of a node of this type. Pure. */
export function canonicalHandle(nodeType: string | undefined, handle: string): string {
  return (nodeType !== undefined && LEGACY_OUTPUT_HANDLES[nodeType]?.[handle]) || handle;
}

/** The graph with every legacy output handle renamed; the same object when none is used. Pure. */
export function upgradeGraph<G extends Graph>(graph: G): G {
  if (!graph || !Array.isArray(graph.nodes) || !Array.isArray(graph.edges)) return graph;
  const types = new Map(graph.nodes.map((n) => [n.id, n.type]));
  let changed = false;
  const edges = graph.edges.map((e) => {
    const handle = canonicalHandle(types.get(e.source), e.sourceHandle);
    if (handle === e.sourceHandle) return e;
    changed = true;
    return { ...e, sourceHandle: handle };
  });
  return changed ? { ...graph, edges } : graph;
}
