import { Type } from '@sinclair/typebox';

/** The types a workflow's request field may take (a subset of the catalog's port types, catalog/types.ts PortType). */
export const REQUEST_FIELD_TYPES: Array<'text' | 'number' | 'boolean' | 'image' | 'audio' | 'video' | 'file' | 'any'> =
  ['text', 'number', 'boolean', 'image', 'audio', 'video', 'file', 'any'];

const PortTypeSchema = Type.Union(REQUEST_FIELD_TYPES.map((t) => Type.Literal(t)));
const Position = Type.Object({ x: Type.Number({ minimum: -1e6, maximum: 1e6 }), y: Type.Number({ minimum: -1e6, maximum: 1e6 }) }, { additionalProperties: false });
export const RequestFieldInput = Type.Object({
  id: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,64}$' })),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: PortTypeSchema,
  value: Type.Optional(Type.Unknown()),
}, { additionalProperties: false });

export const NodeInputSchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  type: Type.String({ minLength: 1, maxLength: 100 }),
  subModelId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  label: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  position: Type.Optional(Position),
  data: Type.Optional(Type.Object({}, { additionalProperties: true })),
}, { additionalProperties: false });

export const EdgeInputSchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  source: Type.String({ minLength: 1, maxLength: 64 }),
  sourceHandle: Type.String({ minLength: 1, maxLength: 200 }),
  target: Type.String({ minLength: 1, maxLength: 64 }),
  targetHandle: Type.String({ minLength: 1, maxLength: 200 }),
}, { additionalProperties: false });

export const WorkflowSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  slug: Type.Optional(Type.String()),
  isSystem: Type.Boolean(),
  nodes: Type.Array(Type.Object({
    id: Type.String(), type: Type.String(), subModelId: Type.Union([Type.String(), Type.Null()]), label: Type.Union([Type.String(), Type.Null()]),
    position: Type.Object({ x: Type.Number(), y: Type.Number() }), data: Type.Object({}, { additionalProperties: true }),
  })),
  edges: Type.Array(Type.Object({ id: Type.String(), source: Type.String(), sourceHandle: Type.String(), target: Type.String(), targetHandle: Type.String() })),
  requestNodeId: Type.String({ description: 'Every workflow has one Request node (added when missing; it cannot be deleted)' }),
  responseNodeId: Type.String({ description: 'Every workflow has one Response node (added when missing; it cannot be deleted)' }),
  requestFields: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), type: Type.String(), value: Type.Optional(Type.Unknown()) })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
}, { $id: 'Workflow' });

export { Position, PortTypeSchema };

// Request shapes: the routes validate them and the workflow service takes their Static<> types.

/** POST /v1/workflows: a full graph. */
export const CreateWorkflowBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  nodes: Type.Array(NodeInputSchema),
  edges: Type.Array(EdgeInputSchema),
  requestFields: Type.Optional(Type.Array(RequestFieldInput, { maxItems: 50 })),
}, { additionalProperties: false });

/** POST /v1/workflows/quick-create: a scaffolded Request → Response workflow. */
export const QuickCreateWorkflowBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  requestFields: Type.Optional(Type.Array(RequestFieldInput, { maxItems: 50 })),
}, { additionalProperties: false });

/** GET /v1/workflows. */
export const ListWorkflowsQuery = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 500 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }), search: Type.Optional(Type.String({ maxLength: 200 })) });

/** PATCH /v1/workflows/{id}. */
export const PatchWorkflowBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), description: Type.Optional(Type.String({ maxLength: 5000 })) }, { additionalProperties: false });

/** POST /v1/workflows/{id}/nodes. */
export const AddNodeBody = Type.Object({
  nodeType: Type.String({ minLength: 1, maxLength: 100 }),
  subModelId: Type.Optional(Type.String({ maxLength: 100 })),
  mode: Type.Optional(Type.String({ maxLength: 100 })),
  inputs: Type.Optional(Type.Object({}, { additionalProperties: true })),
  column: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  row: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  position: Type.Optional(Position),
  label: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

/** PATCH /v1/workflows/{id}/nodes/{nodeId}. */
export const PatchNodeBody = Type.Object({
  inputs: Type.Optional(Type.Object({}, { additionalProperties: true })),
  subModelId: Type.Optional(Type.String({ maxLength: 100 })),
  mode: Type.Optional(Type.String({ maxLength: 100 })),
  position: Type.Optional(Position),
  label: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

/** POST /v1/workflows/{id}/edges. */
export const AddEdgeBody = Type.Object({
  sourceNodeId: Type.String({ minLength: 1, maxLength: 64 }), sourceHandle: Type.String({ minLength: 1, maxLength: 200 }),
  targetNodeId: Type.String({ minLength: 1, maxLength: 64 }), targetHandle: Type.String({ minLength: 1, maxLength: 200 }),
}, { additionalProperties: false });

