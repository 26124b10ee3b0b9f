import type { BodyOf, ResponseOf, Schemas } from './types-api.js';
import type { JsonObject } from './types-common.js';

// Generated from the OpenAPI document (see types-api.ts); only PricingRule adds detail the document leaves open.
export type SubModel = Schemas['SubModel'];
/** An entry of `GET /v1/models`. */
export type ModelEntry = Schemas['ModelEntry'];
export type ModelCategory = ModelEntry['category'];
export type ModelSearchResult = Schemas['ModelSearch'];
export type SearchEntry = NonNullable<ModelSearchResult['modelCatalog']>[string][number];
/** How a model works: a trained model runs on the server, a classic program, rules, or a provider's model. */
export type EngineKind = ModelEntry['engine'];
export type CategoryRole = 'GENERATE' | 'EDIT' | 'TRANSFORM' | 'TRANSCRIBE' | 'UNDERSTAND';
export type ModelCatalog = Schemas['ModelCatalog'];
export type ModelSchema = Schemas['ModelSchema'];
export type ModelField = ModelSchema['fields'][number];
export type ModelPricing = Schemas['ModelPricing'];

/** The shapes `ModelPricing.rule` takes (narrow it with `rule.kind`). */
export type PricingRule =
  | { kind: 'flat'; microcredits: number; multipliers?: { field: string; basisPoints: unknown }[] }
  | { kind: 'per_unit'; unit: string; microcreditsPerUnit: number; inputField?: string; defaultQuantity?: number; minimum?: number; multipliers?: { field: string; basisPoints: unknown }[] }
  | ({ kind: string } & JsonObject);

/** One node to price: a model nodeType (or request/response) with its input values. */
export type EstimateNode = BodyOf<'estimates.workflow'>['nodes'][number];
export type NodeEstimate = ResponseOf<'estimates.node', 200>;
export type WorkflowEstimate = ResponseOf<'estimates.workflow', 200>;
export type DeprecatedModel = ResponseOf<'models.deprecated', 200>['items'][number];
export type DeprecatedRun = ResponseOf<'models.deprecatedRuns', 200>['items'][number];
