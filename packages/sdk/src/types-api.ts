/**
 * Helpers over the types generated from the OpenAPI document (generated/openapi.ts, by
 * scripts/openapiGenerate.ts): the SDK's request and response types are these, not copies. Operations
 * are keyed by operationId, which is the SDK method name (`workflows.quickCreate`).
 */
import type { components, operations } from './generated/openapi.js';

export type Schemas = components['schemas'];
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation answers with on `status`. */
export type ResponseOf<O extends keyof operations, S extends keyof operations[O]['responses']> = JsonOf<operations[O]['responses'][S]>;
/** The JSON request body of an operation. */
export type BodyOf<O extends keyof operations> = operations[O] extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** The query parameters of an operation. */
export type QueryOf<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
