import type { EventType, JsonObject, WebhookConfig } from './types-common.js';

export type RunStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';
export type NodeRunStatus = RunStatus | 'PENDING' | 'SKIPPED';
export const TERMINAL_STATUSES: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELED'];

/** The 202 answer of a create. */
export interface RunCreated {
  runId: string;
  status: RunStatus;
  estimatedCredits: number;
}

export interface FileView {
  id: string;
  /** Signed URL; works without an API key until it expires. */
  url: string;
  contentType: string;
  bytes: number;
  filename?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** `GET /v1/nodes/runs/{runId}`. */
export interface NodeRun {
  runId?: string;
  id: string;
  nodeType: string;
  subModelId: string | null;
  status: RunStatus;
  input: JsonObject;
  /** `result`: file URLs (media models); `output`: text (text models). */
  output: ({ result?: string[]; output?: string } & JsonObject) | null;
  files: FileView[];
  error: string | null;
  userMessage: string | null;
  creditUsed: number;
  estimatedCredits: number;
  progress?: number | null;
  progressMessage?: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface WorkflowNodeRun {
  nodeId: string;
  nodeType: string;
  subModelId: string | null;
  status: NodeRunStatus;
  cached: boolean;
  input?: JsonObject | null;
  output?: JsonObject | null;
  logs?: unknown;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  estimatedCredits: number;
  actualCredits: number;
}

/** `GET /v1/runs/{runId}`. */
export interface WorkflowRun {
  runId?: string;
  id: string;
  status: RunStatus;
  workflowId: string;
  triggerRunId: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  context: unknown;
  /** What reached the Response node, keyed by source node id and handle. */
  outputs: JsonObject | null;
  estimatedCredits: number;
  actualCredits: number;
  nodeRuns: WorkflowNodeRun[];
}

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

/** The body of every webhook delivery and SSE event. */
export interface WebhookEvent {
  success: boolean;
  type: EventType;
  runId: string;
  workflowId: string;
  data: JsonObject;
  metadata: JsonObject | null;
  error: string | null;
  createdAt: string;
}

/** One Server-Sent Event of a run stream. */
export interface RunStreamEvent {
  id: string;
  event: EventType | string;
  data: WebhookEvent;
}
