/**
 * The one catalogue of error codes and the HTTP status each maps to.
 * Services throw AppError; the HTTP layer shapes it into the spec's error body.
 */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  TOO_MANY_NODES: 400,
  INVALID_GRAPH: 400,
  INPUT_TOO_LARGE: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 403,
  /** A spend limit of the account or the key (per day, month or in total) would be passed: the body names it. */
  BUDGET_EXCEEDED: 403,
  /** The key's allow-list of models (nodeTypes, categories, providers) does not include this model. */
  KEY_SCOPE_MODEL: 403,
  /** The key's role (run-only, read-only) does not allow this call. */
  KEY_ROLE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  MODEL_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  MODEL_DEPRECATED: 410,
  PAYLOAD_TOO_LARGE: 413,
  /** The account's stored files would pass its storage quota (ATELIER_STORAGE_QUOTA_MB). */
  STORAGE_QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PRICING_ERROR: 500,
  MODEL_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  /** The artifact store is out of room (or down to the reserve kept for the database, ATELIER_DISK_RESERVE_MB). */
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  readonly extra?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After, Allow). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = opts.details;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }
}

export function validationError(path: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `${path} ${message}`, { details: [{ path, message }] });
}
