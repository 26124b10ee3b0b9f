import type { FieldSpec, ModeDef, PortType } from '../catalog/types.js';
import type { GraphNode, RequestField } from './types.js';

/** A port of a node, as the graph sees it. */
export interface Port {
  handle: string;
  dataType: PortType;
  /** Input ports only: may take several edges (list inputs, the Response node). */
  many: boolean;
  /** Input ports only: the model field it feeds. */
  field?: FieldSpec;
}

const LIST_WIDGETS = new Set(['images', 'videos', 'multiselect']);

export function requestFieldsOf(node: GraphNode): RequestField[] {
  const fields = node.data.fields;
  return Array.isArray(fields) ? (fields as RequestField[]) : [];
}

/** Input and output ports of a node: from the model mode's fields and outputs, or the built-ins' fixed ports. */
export function portsOf(node: GraphNode, mode: ModeDef | undefined): { inputs: Port[]; outputs: Port[] } {
  if (node.type === 'request') {
    return { inputs: [], outputs: requestFieldsOf(node).map((f) => ({ handle: f.id, dataType: f.type, many: false })) };
  }
  if (node.type === 'response') {
    return { inputs: [{ handle: 'result', dataType: 'any', many: true }], outputs: [] };
  }
  if (!mode) return { inputs: [], outputs: [] };
  return {
    inputs: mode.fields.map((f) => ({
      handle: `in:${f.name}`,
      dataType: f.dataType,
      many: LIST_WIDGETS.has(f.type) || /_urls$/.test(f.name),
      field: f,
    })),
    outputs: mode.outputs.map((o) => ({ handle: `out:${o.name}`, dataType: o.dataType, many: false })),
  };
}

/**
 * Whether data of type `from` may flow into a port of type `to`: equal types, anything into `any`, text
 * into select/number (parsed at run time), and `any` out of a port into anything (checked at run time).
 */
export function compatible(from: PortType, to: PortType): boolean {
  if (from === to || to === 'any' || from === 'any') return true;
  if (from === 'text' && (to === 'select' || to === 'number')) return true;
  if (to === 'avmedia' && (from === 'audio' || from === 'video')) return true;
  if (to === 'file') return from === 'image' || from === 'audio' || from === 'video' || from === 'avmedia';
  return false;
}
