import type { JsonObject } from './types-common.js';

export type ModelCategory = 'image' | 'video' | 'audio' | 'llm' | 'utility';

/** How a model works: a trained model runs on the server, a classic program, rules, or a provider's model. */
export type EngineKind = 'ml' | 'tool' | 'procedural' | 'remote';

export interface SubModel {
  subModelId: string;
  label: string;
  category: string;
  engine?: EngineKind;
  available?: boolean;
  unavailableReason?: string;
}

/** An entry of `GET /v1/models`. */
export interface ModelEntry {
  nodeType: string;
  name: string;
  description: string;
  category: ModelCategory;
  icon: string;
  accent: string;
  subModels?: SubModel[];
  available: boolean;
  unavailableReason?: string;
  provider: string;
  engine: EngineKind;
  deprecated?: boolean;
  replacement?: string;
}

export interface SearchEntry {
  modelId: string;
  nodeType: string;
  subModelId?: string;
  name: string;
  description: string;
  available: boolean;
  engine: EngineKind;
  /** On procedural generators listed under a generative category: what they make instead of following a prompt. */
  note?: string;
}

export type CategoryRole = 'GENERATE' | 'EDIT' | 'TRANSFORM' | 'TRANSCRIBE' | 'UNDERSTAND';

export interface ModelSearchResult {
  modelCatalog?: Record<string, SearchEntry[]>;
  categoryRoles?: Record<string, CategoryRole | string>;
  usage: string;
  hint?: string;
  noMatch?: string;
  categoryRoleHints?: Record<string, string[]>;
}

export interface ModelCatalog {
  total: number;
  categories: { category: string; label: string; models: JsonObject[] }[];
}

export interface ModelField {
  name: string;
  type: string;
  dataType: string;
  required: boolean;
  options: (string | number)[] | null;
  default: unknown;
  description: string;
  showWhen: JsonObject | null;
  placeholder: string | null;
  min: number | null;
  max: number | null;
  maxLength: number | null;
}

export interface ModelSchema {
  modelId: string;
  nodeType: string;
  subModelId: string | null;
  name: string;
  category: string;
  description: string;
  features: string[];
  capabilities: JsonObject;
  fields: ModelField[];
  defaults: JsonObject;
  outputs: { name: string; dataType: string }[];
  jsonSchema: JsonObject;
}

export type PricingRule =
  | { kind: 'flat'; microcredits: number; multipliers?: { field: string; basisPoints: unknown }[] }
  | { kind: 'per_unit'; unit: string; microcreditsPerUnit: number; inputField?: string; defaultQuantity?: number; minimum?: number; multipliers?: { field: string; basisPoints: unknown }[] }
  | ({ kind: string } & JsonObject);

export interface ModelPricing {
  modelId: string;
  nodeType: string;
  subModelId: string | null;
  unit: string;
  rule: PricingRule;
  summary: string;
  examples: { input: JsonObject; microcredits: number }[];
}

/** One node to price: a model nodeType (or request/response) with its input values. */
export interface EstimateNode {
  type: string;
  data?: JsonObject;
  subModelId?: string | null;
}

export interface NodeEstimate {
  estimates: { microcredits: number }[];
  totalMicrocredits: number;
}

export interface WorkflowEstimate {
  totalMicrocredits: number;
  estimates: { microcredits: number }[];
}

export interface DeprecatedModel {
  nodeType: string;
  name: string;
  category: string;
  deprecatedAt: string;
  replacement: string;
  runCount: number;
}
