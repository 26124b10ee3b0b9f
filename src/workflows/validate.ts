import type { ModeDef } from '../catalog/types.js';
import { compatible, portsOf, requestFieldsOf } from './ports.js';
import { MAX_WORKFLOW_NODES, type Graph, type GraphNode, type NodeError } from './types.js';

/** How the validator learns about models: the mode a node runs, or an error message. Keeps this module pure. */
export type ModeLookup = (node: GraphNode) => { mode: ModeDef } | { error: string };

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks a workflow graph and returns every problem found, each naming its node (and port): node ids,
 * known models, one Request node, at least one Response node (when `runnable`), edges between existing
 * ports with compatible types, at most one edge into a single-input port, no cycles, at most 100 nodes.
 * Pure: the caller supplies model lookups.
 */
export function validateGraph(graph: Graph, lookup: ModeLookup, opts: { runnable: boolean }): NodeError[] {
  const errors: NodeError[] = [];
  if (graph.nodes.length > MAX_WORKFLOW_NODES) {
    errors.push({ nodeId: '*', message: `a workflow has at most ${MAX_WORKFLOW_NODES} nodes; this one has ${graph.nodes.length}` });
    return errors;
  }
  const byId = new Map<string, GraphNode>();
  const modes = new Map<string, ModeDef>();
  for (const node of graph.nodes) {
    if (!NODE_ID.test(node.id)) errors.push({ nodeId: node.id, message: 'node ids are 1 to 64 letters, digits, _ or -' });
    if (byId.has(node.id)) errors.push({ nodeId: node.id, message: 'duplicate node id' });
    byId.set(node.id, node);
    if (node.type === 'request' || node.type === 'response') continue;
    const found = lookup(node);
    if ('error' in found) errors.push({ nodeId: node.id, message: found.error });
    else modes.set(node.id, found.mode);
  }
  const requests = graph.nodes.filter((n) => n.type === 'request');
  const responses = graph.nodes.filter((n) => n.type === 'response');
  if (requests.length > 1) for (const n of requests.slice(1)) errors.push({ nodeId: n.id, message: 'a workflow has exactly one Request node' });
  if (opts.runnable && requests.length === 0) errors.push({ nodeId: '*', message: 'the workflow has no Request node' });
  if (opts.runnable && responses.length === 0) errors.push({ nodeId: '*', message: 'the workflow has no Response node' });
  for (const r of requests) {
    const ids = new Set<string>();
    for (const f of requestFieldsOf(r)) {
      if (ids.has(f.id)) errors.push({ nodeId: r.id, port: f.id, message: 'duplicate request field id' });
      ids.add(f.id);
    }
  }

  const edgeIds = new Set<string>();
  const intoPort = new Map<string, number>();
  const adjacency = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (edgeIds.has(e.id)) errors.push({ nodeId: e.target, message: `duplicate edge id ${e.id}` });
    edgeIds.add(e.id);
    const src = byId.get(e.source);
    const dst = byId.get(e.target);
    if (!src) { errors.push({ nodeId: e.source, message: `edge ${e.id} starts at a node that does not exist` }); continue; }
    if (!dst) { errors.push({ nodeId: e.target, message: `edge ${e.id} ends at a node that does not exist` }); continue; }
    if (e.source === e.target) { errors.push({ nodeId: e.source, message: `edge ${e.id} connects the node to itself` }); continue; }
    const out = portsOf(src, modes.get(src.id)).outputs.find((p) => p.handle === e.sourceHandle);
    const inp = portsOf(dst, modes.get(dst.id)).inputs.find((p) => p.handle === e.targetHandle);
    if (!out) { errors.push({ nodeId: src.id, port: e.sourceHandle, message: `no output port ${e.sourceHandle}` }); continue; }
    if (!inp) { errors.push({ nodeId: dst.id, port: e.targetHandle, message: `no input port ${e.targetHandle}` }); continue; }
    if (!compatible(out.dataType, inp.dataType)) {
      errors.push({ nodeId: dst.id, port: e.targetHandle, message: `${out.dataType} from ${src.id}.${e.sourceHandle} cannot feed a ${inp.dataType} input` });
    }
    const key = `${dst.id}\u0000${e.targetHandle}`;
    const count = (intoPort.get(key) ?? 0) + 1;
    intoPort.set(key, count);
    if (count === 2 && !inp.many) errors.push({ nodeId: dst.id, port: e.targetHandle, message: 'this input takes one edge; it has several' });
    (adjacency.get(src.id) ?? adjacency.set(src.id, []).get(src.id)!).push(dst.id);
  }
  for (const id of findCycle(graph.nodes.map((n) => n.id), adjacency)) errors.push({ nodeId: id, message: 'this node is part of a cycle' });
  return errors;
}

/** The nodes left over by Kahn's algorithm: exactly those on or behind a cycle. */
function findCycle(ids: string[], adjacency: Map<string, string[]>): string[] {
  const indegree = new Map(ids.map((id) => [id, 0]));
  for (const targets of adjacency.values()) for (const t of targets) indegree.set(t, (indegree.get(t) ?? 0) + 1);
  const queue = ids.filter((id) => indegree.get(id) === 0);
  let seen = 0;
  while (queue.length) {
    const id = queue.pop()!;
    seen++;
    for (const t of adjacency.get(id) ?? []) {
      const d = indegree.get(t)! - 1;
      indegree.set(t, d);
      if (d === 0) queue.push(t);
    }
  }
  if (seen === ids.length) return [];
  return ids.filter((id) => (indegree.get(id) ?? 0) > 0);
}

/** Node ids in an order where every node comes after the nodes feeding it (the graph must be acyclic). */
export function topologicalOrder(graph: Graph): string[] {
  const adjacency = new Map<string, string[]>();
  const indegree = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (const e of graph.edges) {
    (adjacency.get(e.source) ?? adjacency.set(e.source, []).get(e.source)!).push(e.target);
    indegree.set(e.target, (indegree.get(e.target) ?? 0) + 1);
  }
  const order: string[] = [];
  const queue = graph.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  while (queue.length) {
    const id = queue.shift()!;
    order.push(id);
    for (const t of adjacency.get(id) ?? []) {
      const d = indegree.get(t)! - 1;
      indegree.set(t, d);
      if (d === 0) queue.push(t);
    }
  }
  return order;
}
