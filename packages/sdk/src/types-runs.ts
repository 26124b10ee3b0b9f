import type { Schemas } from './types-api.js';
import type { EventType, JsonObject, WebhookConfig } from './types-common.js';

// Records generated from the OpenAPI document (see types-api.ts); the rest are SDK call options.
export type RunStatus = Schemas['NodeRun']['status'];
export type NodeRunStatus = Schemas['WorkflowNodeRun']['status'];
export const TERMINAL_STATUSES: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELED'];

/** The 202 answer of a create. */
export type RunCreated = Schemas['RunCreated'];
export type FileView = Schemas['FileView'];
/**
 * `GET /v1/nodes/runs/{runId}`. `output` is keyed by the mode's declared outputs (the model schema's `outputs[].name`):
 * `result` (file URLs) and `resultMetadata` for most media models, `output` (text) for text models, and the
 * hosted keys for the hosted utilities (`image_url`, `video_url`, `audio_url`, `text` + `content_url`). Every
 * file also appears in `files`, whatever its key.
 */
export type NodeRun = Schemas['NodeRun'];
export type WorkflowNodeRun = Schemas['WorkflowNodeRun'];
/** `GET /v1/runs/{runId}`. */
export type WorkflowRun = Schemas['WorkflowRun'];

/** Options shared by both run creates; each maps to a header or a body field. */
export interface RunOptions {
  webhook?: WebhookConfig | null;
  /** Sent as Idempotency-Key; generated when omitted so that retries cannot start a second run. */
  idempotencyKey?: string;
  /** Cancel-After: seconds, or `90s` / `5m` / `1h`. */
  cancelAfter?: number | string;
}

export interface RunModelParams extends RunOptions {
  subModelId?: string | null;
  input: JsonObject;
  /** -10..10, 0 normal; above 0 only up to the key's ceiling (403 PRIORITY_NOT_ALLOWED). */
  priority?: number;
}

/** `GET /v1/batches/{batchId}`. */
export type Batch = Schemas['Batch'];
export type BatchRun = Schemas['BatchRun'];

export interface CreateBatchParams {
  /** One model input per run, 1 to 100. */
  inputs: JsonObject[];
  subModelId?: string | null;
  webhook?: WebhookConfig | null;
  priority?: number;
  /** Sent as Idempotency-Key; generated when omitted so that retries cannot start a second batch. */
  idempotencyKey?: string;
}

export interface RunWorkflowParams extends RunOptions {
  /** `{ <requestNodeId>: { <fieldId or name>: value } }`. */
  values?: Record<string, JsonObject>;
}

export interface WorkflowRunListQuery {
  cursor?: string;
  limit?: number;
  status?: RunStatus;
  workflowId?: string;
}

/** The body of every webhook delivery and SSE event (the document's `webhooks`). */
export type WebhookEvent = Schemas['WebhookEvent'];

/**
 * `run.output.delta`: text an engine just made (an LLM's tokens), on run streams only: not stored (its SSE
 * id is ''), never sent to webhooks. A node's deltas in `index` order are its output text; the final event
 * carries the whole text (docs/api.md "Streamed output").
 */
export interface RunOutputDelta {
  type: 'run.output.delta';
  runId: string;
  nodeId?: string;
  index: number;
  delta: string;
  tokens: number;
}

/** One Server-Sent Event of a run stream: a stored event (webhook payload), or a streamed output delta. */
export interface RunStreamEvent {
  id: string;
  event: EventType | 'run.output.delta' | string;
  data: WebhookEvent | RunOutputDelta;
}
