import crypto from 'node:crypto';
import { canonicalJson } from '../canonicalJson.js';
import type { ModeDef } from '../catalog/types.js';
import { fieldError, type AppError } from '../errors.js';
import { portsOf, requestFieldsOf } from './ports.js';
import type { Graph, GraphNode, RequestField } from './types.js';

/**
 * Pure helpers of the executor: checking request values, building a node's input from its own values and
 * what flows along its incoming edges, and the node cache key.
 */

/** values: { <requestNodeId>: { <fieldId or name>: value } } → field id → value (stored values fill gaps). */
export function resolveRequestValues(graph: Graph, values: unknown): Record<string, unknown> {
  const request = graph.nodes.find((n) => n.type === 'request');
  const fields = request ? requestFieldsOf(request) : [];
  const bad = (path: string, message: string): AppError => fieldError(path, message);
  if (values !== undefined && (values === null || typeof values !== 'object' || Array.isArray(values))) throw bad('values', 'must be an object keyed by the Request node id');
  const given = (values ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) if (!request || key !== request.id) throw bad(`values.${key}`, `is not the Request node of this workflow${request ? ` (${request.id})` : ''}`);
  const mine = request ? given[request.id] : undefined;
  if (mine !== undefined && (mine === null || typeof mine !== 'object' || Array.isArray(mine))) throw bad(`values.${request!.id}`, 'must be an object of field values');
  const byKey = new Map<string, RequestField>();
  for (const f of fields) {
    byKey.set(f.id, f);
    byKey.set(f.name, f);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((mine ?? {}) as Record<string, unknown>)) {
    const field = byKey.get(k);
    const path = `values.${request!.id}.${k}`;
    if (!field) throw bad(path, `is not a field of the Request node (fields: ${fields.map((f) => f.id).join(', ') || 'none'})`);
    checkType(field, v, path, bad);
    out[field.id] = v;
  }
  for (const f of fields) {
    if (out[f.id] !== undefined) continue;
    if (f.value !== undefined) out[f.id] = f.value;
    else if (graph.edges.some((e) => e.source === request!.id && e.sourceHandle === f.id)) throw bad(`values.${request!.id}.${f.id}`, 'is required');
  }
  return out;
}

function checkType(field: RequestField, v: unknown, path: string, bad: (p: string, m: string) => AppError): void {
  const ok =
    field.type === 'any' ? true
      : field.type === 'number' ? typeof v === 'number' && Number.isFinite(v)
        : field.type === 'boolean' ? typeof v === 'boolean'
          : typeof v === 'string' && v.length <= (field.type === 'text' ? 100_000 : 2_000_000);
  if (!ok) throw bad(path, `must be ${field.type === 'number' ? 'a number' : field.type === 'boolean' ? 'true or false' : field.type === 'text' ? 'a string' : `a ${field.type} URL`}`);
}

/** The value an edge carries out of its source: a Request field, or a completed node's stored output. */
function edgeValue(source: GraphNode, handle: string, requestValues: Record<string, unknown>, outputs: Map<string, Record<string, unknown>>): unknown {
  if (source.type === 'request') return requestValues[handle];
  const out = outputs.get(source.id);
  return out?.[handle.replace(/^out:/, '')];
}

/**
 * A node's input: its own values, then each incoming edge's value (edges win). A list output feeding a
 * single input gives its first item; list inputs collect every edge's items. Text feeding a number input
 * is parsed.
 */
export function nodeInput(graph: Graph, node: GraphNode, mode: ModeDef, requestValues: Record<string, unknown>, outputs: Map<string, Record<string, unknown>>): Record<string, unknown> {
  const input: Record<string, unknown> = structuredClone(node.data);
  const ports = portsOf(node, mode).inputs;
  const collected = new Map<string, unknown[]>();
  for (const e of graph.edges.filter((x) => x.target === node.id)) {
    const port = ports.find((p) => p.handle === e.targetHandle);
    const source = graph.nodes.find((n) => n.id === e.source);
    if (!port || !source || !port.field) continue;
    let value = edgeValue(source, e.sourceHandle, requestValues, outputs);
    if (value === undefined || value === null) continue;
    if (port.many) {
      const list = collected.get(port.field.name) ?? [];
      list.push(...(Array.isArray(value) ? value : [value]));
      collected.set(port.field.name, list);
      continue;
    }
    if (Array.isArray(value)) value = value[0];
    if (port.dataType === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) value = Number(value);
    input[port.field.name] = value;
  }
  for (const [name, list] of collected) input[name] = list;
  return input;
}

/** Replaces `{ file: id }` references anywhere in a value. */
export function mapFileRefs(v: unknown, fn: (id: string) => unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { file?: unknown }).file === 'string') return fn((v as { file: string }).file);
  if (Array.isArray(v)) return v.map((x) => mapFileRefs(x, fn));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapFileRefs(x, fn)]));
  return v;
}


/**
 * The node cache key: model, mode and the resolved input, with files standing for their content hash
 * (so the same bytes reached by another run hit the cache, while signed URLs never enter the key).
 */
export function cacheKey(nodeType: string, subModelId: string | null, input: Record<string, unknown>, shaOf: (fileId: string) => string): string {
  const normal = mapFileRefs(input, (id) => ({ sha256: shaOf(id) }));
  return crypto.createHash('sha256').update(canonicalJson({ nodeType, subModelId, input: normal })).digest('hex');
}
