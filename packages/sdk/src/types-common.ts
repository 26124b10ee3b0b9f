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

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface NodeError {
  nodeId: string;
  port?: string;
  message: string;
}

/** The error body of every non-2xx answer. */
export interface ErrorBody {
  error: string;
  message: string;
  code: string;
  traceId: string;
  details?: ErrorDetail[];
  nodeErrors?: NodeError[];
}

export type EventType = 'run.started' | 'run.completed' | 'run.failed' | 'run.canceled' | 'node.completed' | 'node.failed';

export interface WebhookConfig {
  url: string;
  events?: EventType[];
  metadata?: JsonObject;
  headers?: Record<string, string>;
}
