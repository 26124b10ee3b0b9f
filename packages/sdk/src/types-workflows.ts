import type { BodyOf, QueryOf, ResponseOf, Schemas } from './types-api.js';

// Generated from the OpenAPI document (see types-api.ts).
export type PortType = 'text' | 'image' | 'video' | 'audio' | 'avmedia' | 'file' | 'number' | 'boolean' | 'select' | 'any';
export type CreateWorkflowParams = BodyOf<'workflows.create'>;
export type QuickCreateWorkflowParams = NonNullable<BodyOf<'workflows.quickCreate'>>;
export type RequestFieldInput = NonNullable<CreateWorkflowParams['requestFields']>[number];
export type WorkflowNodeInput = CreateWorkflowParams['nodes'][number];
export type WorkflowEdgeInput = CreateWorkflowParams['edges'][number];
export type Position = NonNullable<WorkflowNodeInput['position']>;
export type Workflow = Schemas['Workflow'];
export type WorkflowNode = Workflow['nodes'][number];
export type WorkflowEdge = Workflow['edges'][number];
export type WorkflowSummary = ResponseOf<'workflows.list', 200>['items'][number];
export type WorkflowListQuery = QueryOf<'workflows.list'>;
/** `mode` is a subModelId or a sub-model category; `column` ≥ 1 (column 1 is the first batch after the Request node). */
export type AddNodeParams = BodyOf<'workflows.addNode'>;
export type AddedNode = ResponseOf<'workflows.addNode', 201>;
/** `inputs` are merged into the node's values; `null` removes a value. */
export type UpdateNodeParams = BodyOf<'workflows.updateNode'>;
export type UpdatedNode = ResponseOf<'workflows.updateNode', 200>;
export type AddEdgeParams = BodyOf<'workflows.addEdge'>;
export type AddedEdge = ResponseOf<'workflows.addEdge', 201>;
export type SystemWorkflow = ResponseOf<'workflows.systemList', 200>['items'][number];
