import type { Schemas } from './types-api.js';
/** Shapes shared by several endpoints (api-decisions.md). Money is integer microcredits everywhere. */

export type JsonObject = Record<string, unknown>;

/** A cursor page as every list endpoint returns it; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  cursor?: string;
  limit?: number;
}

/** The error body of every non-2xx answer (generated from the OpenAPI document, see types-api.ts). */
export type ErrorBody = Schemas['ErrorResponse'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];
export type NodeError = NonNullable<ErrorBody['nodeErrors']>[number];

export type EventType = Schemas['EventType'];

export interface WebhookConfig {
  url: string;
  events?: EventType[];
  metadata?: JsonObject;
  headers?: Record<string, string>;
}
