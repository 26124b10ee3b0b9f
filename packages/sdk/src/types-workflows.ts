import type { JsonObject } from './types-common.js';

export type PortType = 'text' | 'image' | 'video' | 'audio' | 'avmedia' | 'file' | 'number' | 'boolean' | 'select' | 'any';
export interface Position { x: number; y: number }

export interface RequestFieldInput {
  id?: string;
  name: string;
  type: 'text' | 'number' | 'boolean' | 'image' | 'audio' | 'video' | 'file' | 'any';
  value?: unknown;
}

export interface WorkflowNodeInput {
  id?: string;
  type: string;
  subModelId?: string | null;
  label?: string | null;
  position?: Position;
  data?: JsonObject;
}

export interface WorkflowEdgeInput {
  id?: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

export interface WorkflowNode {
  id: string;
  type: string;
  subModelId: string | null;
  label: string | null;
  position: Position;
  data: JsonObject;
}

export interface WorkflowEdge {
  id: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

export interface Workflow {
  id: string;
  name: string;
  description: string;
  slug?: string;
  isSystem: boolean;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  requestNodeId: string | null;
  responseNodeId: string | null;
  requestFields: { id: string; name: string; type: string; value?: unknown }[];
  createdAt: string;
  updatedAt: string;
}

export interface WorkflowSummary {
  id: string;
  name: string;
  updatedAt: string;
  nodeCount: number;
}

export interface CreateWorkflowParams {
  name: string;
  description?: string;
  nodes: WorkflowNodeInput[];
  edges: WorkflowEdgeInput[];
  requestFields?: RequestFieldInput[];
}

export interface QuickCreateWorkflowParams {
  name?: string;
  description?: string;
  requestFields?: RequestFieldInput[];
}

export interface AddNodeParams {
  nodeType: string;
  subModelId?: string;
  /** A subModelId or a sub-model category. */
  mode?: string;
  inputs?: JsonObject;
  /** ≥ 1; column 1 is the first batch after the Request node. */
  column?: number;
  row?: number;
  position?: Position;
  label?: string;
}

export interface AddedNode {
  nodeId: string;
  type: string;
  subModelId: string | null;
  mode: string;
  position: Position;
  inputPorts: string[];
  outputPorts: string[];
  inputsSet: string[];
}

export interface UpdateNodeParams {
  /** Merged into the node's values; `null` removes a value. */
  inputs?: JsonObject;
  subModelId?: string;
  mode?: string;
  position?: Position;
  label?: string;
}

export interface UpdatedNode {
  nodeId: string;
  type: string;
  subModelId: string | null;
  data: JsonObject;
  inputsSet: string[];
}

export interface AddEdgeParams {
  sourceNodeId: string;
  sourceHandle: string;
  targetNodeId: string;
  targetHandle: string;
}

export interface AddedEdge {
  edgeId: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
  dataTypes: { source: string | null; target: string | null };
}

export interface SystemWorkflow {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  nodeTypes: string[];
  requestFields: JsonObject[];
}

export interface WorkflowListQuery {
  cursor?: string;
  limit?: number;
  search?: string;
}
