import type { PortType } from '../catalog/types.js';

/** Workflow graph shapes (the API contract: src/contract/workflows.ts). */
export interface RequestField {
  /** The Request node's output handle for this field. */
  id: string;
  name: string;
  type: PortType;
  value?: unknown;
}

export interface GraphNode {
  id: string;
  /** A model nodeType, or the built-in `request` / `response`. */
  type: string;
  subModelId: string | null;
  label: string | null;
  position: { x: number; y: number };
  /** Input values keyed by field name; the Request node keeps `fields` here. */
  data: Record<string, unknown>;
}

export interface GraphEdge {
  id: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface NodeError {
  nodeId: string;
  port?: string;
  message: string;
}

export const MAX_WORKFLOW_NODES = 100;
