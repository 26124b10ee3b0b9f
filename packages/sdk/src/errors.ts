import type { ErrorDetail, NodeError } from './types-common.js';

/**
 * Every failure the client reports: an API error body (status ≥ 400) or a transport failure
 * (status 0, code NETWORK_ERROR / TIMEOUT) or a wait that ran out (code WAIT_TIMEOUT).
 */
export class AtelierError extends Error {
  override readonly name = 'AtelierError';
  readonly status: number;
  readonly code: string;
  readonly traceId: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly nodeErrors: NodeError[] | undefined;
  /** Seconds from a 429's Retry-After, when the server sent one. */
  readonly retryAfter: number | undefined;

  constructor(init: { status: number; code: string; message: string; traceId?: string; details?: ErrorDetail[]; nodeErrors?: NodeError[]; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.traceId = init.traceId;
    this.details = init.details;
    this.nodeErrors = init.nodeErrors;
    this.retryAfter = init.retryAfter;
  }
}

/** Thrown by verifyWebhook: the delivery must be rejected (answer 400/401), never processed. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
