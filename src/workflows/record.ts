import { newId } from '../ids.js';
import type { Graph, GraphNode, RequestField } from './types.js';
import { requestFieldsOf } from './ports.js';
import { positionFor } from './layout.js';
import type { PortType } from '../catalog/types.js';

/** The workflow record as the API shows it (shape: src/contract/workflows.ts). Pure shaping. */
export function workflowView(row: { id: string; account_id: string | null; slug: string | null; name: string; description: string; graph: Graph; created_at: Date; updated_at: Date }) {
  const request = row.graph.nodes.find((n) => n.type === 'request');
  const response = row.graph.nodes.find((n) => n.type === 'response');
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...(row.slug ? { slug: row.slug } : {}),
    isSystem: row.account_id === null,
    nodes: row.graph.nodes,
    edges: row.graph.edges,
    requestNodeId: request?.id ?? null,
    responseNodeId: response?.id ?? null,
    requestFields: request ? requestFieldsOf(request) : [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A field id from its name: lower-case letters, digits and _ (made unique by the caller). */
export function fieldIdFrom(name: string): string {
  const id = name.trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60);
  return id || 'field';
}

export function makeRequestFields(input: Array<{ id?: string; name: string; type: PortType; value?: unknown }>): RequestField[] {
  const used = new Set<string>();
  return input.map((f) => {
    let id = f.id ?? fieldIdFrom(f.name);
    for (let i = 2; used.has(id); i++) id = `${fieldIdFrom(f.name)}_${i}`;
    used.add(id);
    return { id, name: f.name, type: f.type, ...(f.value !== undefined ? { value: f.value } : {}) };
  });
}

export function requestNode(fields: RequestField[]): GraphNode {
  return { id: newId('node'), type: 'request', subModelId: null, label: 'Request', position: positionFor(0, 0), data: { fields } };
}

export function responseNode(column = 2): GraphNode {
  return { id: newId('node'), type: 'response', subModelId: null, label: 'Response', position: positionFor(column, 0), data: {} };
}

/** A copy with fresh node and edge ids, edges rewired to the new ids. */
export function copyGraph(graph: Graph): Graph {
  const ids = new Map(graph.nodes.map((n) => [n.id, newId('node')]));
  return {
    nodes: graph.nodes.map((n) => ({ ...structuredClone(n), id: ids.get(n.id)! })),
    edges: graph.edges.map((e) => ({ ...e, id: newId('edge'), source: ids.get(e.source) ?? e.source, target: ids.get(e.target) ?? e.target })),
  };
}
