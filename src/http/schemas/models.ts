import { Type } from '@sinclair/typebox';

/** Response schemas of the model discovery endpoints (api-decisions.md, "Models"). */
export const SubModel = Type.Object({ subModelId: Type.String(), label: Type.String(), category: Type.String() }, { $id: 'SubModel' });

export const ModelEntry = Type.Object({
  nodeType: Type.String(),
  name: Type.String(),
  description: Type.String(),
  category: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('llm'), Type.Literal('utility')]),
  icon: Type.String(),
  accent: Type.String(),
  subModels: Type.Optional(Type.Array(Type.Ref(SubModel))),
  available: Type.Boolean({ description: 'Runs on this server now (local engine present, or remote provider configured)' }),
  unavailableReason: Type.Optional(Type.String()),
  provider: Type.String(),
  deprecated: Type.Optional(Type.Boolean()),
  replacement: Type.Optional(Type.String()),
}, { $id: 'ModelEntry' });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ModelSchema = Type.Object({
  modelId: Type.String(),
  nodeType: Type.String(),
  subModelId: Nullable(Type.String()),
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
  features: Type.Array(Type.String()),
  capabilities: Type.Object({}, { additionalProperties: true }),
  fields: Type.Array(Type.Object({
    name: Type.String(),
    type: Type.String(),
    dataType: Type.String(),
    required: Type.Boolean(),
    options: Nullable(Type.Array(Type.Union([Type.String(), Type.Number()]))),
    default: Type.Unknown(),
    description: Type.String(),
    showWhen: Nullable(Type.Object({}, { additionalProperties: true })),
    placeholder: Nullable(Type.String()),
    min: Nullable(Type.Number()),
    max: Nullable(Type.Number()),
    maxLength: Nullable(Type.Integer()),
  })),
  defaults: Type.Object({}, { additionalProperties: true }),
  outputs: Type.Array(Type.Object({ name: Type.String(), dataType: Type.String() })),
  jsonSchema: Type.Object({}, { additionalProperties: true, description: 'Draft 2020-12 JSON Schema of the input' }),
}, { $id: 'ModelSchema' });

export const ModelPricing = Type.Object({
  modelId: Type.String(),
  nodeType: Type.String(),
  subModelId: Nullable(Type.String()),
  unit: Type.String(),
  rule: Type.Object({}, { additionalProperties: true, description: 'flat { microcredits } or per_unit { unit, microcreditsPerUnit, inputField?, defaultQuantity?, minimum? }, with optional multipliers [{ field, basisPoints }]' }),
  summary: Type.String(),
  examples: Type.Array(Type.Object({ input: Type.Object({}, { additionalProperties: true }), microcredits: Type.Integer() })),
}, { $id: 'ModelPricing' });

const SearchEntry = Type.Object({
  modelId: Type.String(),
  nodeType: Type.String(),
  subModelId: Type.Optional(Type.String()),
  name: Type.String(),
  description: Type.String(),
  available: Type.Boolean(),
});

export const SearchResponse = Type.Object({
  modelCatalog: Type.Optional(Type.Record(Type.String(), Type.Array(SearchEntry))),
  categoryRoles: Type.Optional(Type.Record(Type.String(), Type.String())),
  usage: Type.String(),
  hint: Type.Optional(Type.String()),
  noMatch: Type.Optional(Type.String()),
  categoryRoleHints: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
}, { $id: 'ModelSearch' });

export const CatalogResponse = Type.Object({
  total: Type.Integer(),
  categories: Type.Array(Type.Object({
    category: Type.String(),
    label: Type.String(),
    models: Type.Array(Type.Object({}, { additionalProperties: true })),
  })),
}, { $id: 'ModelCatalog' });

export const EstimateNode = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 100, description: 'A model nodeType (or request/response)' }),
  data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Input values keyed by input field name' })),
  subModelId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
}, { additionalProperties: true });

export const Estimate = Type.Object({
  microcredits: Type.Integer(),
  pricedAtDefault: Type.Optional(Type.Array(Type.String(), {
    description: 'Pricing inputs absent from `data`, priced at their defaults. In a workflow such inputs usually arrive along edges: a run charges each node the price of the input it actually receives, reserved before the node runs.',
  })),
});
