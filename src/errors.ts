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
  /** A create asked for a run priority above its key's ceiling (keys/priority.ts). */
  PRIORITY_NOT_ALLOWED: 403,
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

/** Where a request sent a field: the transport's word, which services do not speak. */
export type FieldPlace = 'body' | 'query' | 'params' | 'headers';

/**
 * An error about fields of a service's arguments, named as the service knows them (`values.req.prompt`,
 * `cursor`), not as HTTP sent them: the transport that called the service says where each was sent
 * (placeFields), so the answer reads `body.values.req.prompt` as before. `named`: the message names the
 * first field (and placing it names it in full there too).
 */
export class FieldError extends AppError {
  constructor(code: ErrorCode, message: string, readonly named: boolean, details: ErrorDetail[], opts: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(code, message, { ...opts, details });
  }
}

/** A field error whose message opens with the field: `${field} ${message}` (as validationError). */
export function fieldError(field: string, message: string): FieldError {
  return new FieldError('VALIDATION_ERROR', `${field} ${message}`, true, [{ path: field, message }]);
}

/**
 * The AppErrors `fn` throws about fields under `root` (a catalog check handed `{ path: root }`) become
 * FieldErrors, so the transport places them; others pass as they are.
 */
export function asFieldErrors<T>(root: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const first = err instanceof AppError && !(err instanceof FieldError) ? err.details?.[0]?.path : undefined;
    if (first === undefined || (first !== root && !first.startsWith(`${root}.`) && !first.startsWith(`${root}[`))) throw err;
    const e = err as AppError;
    throw new FieldError(e.code, e.message, e.message.includes(first), e.details!, { extra: e.extra, headers: e.headers });
  }
}

/** A FieldError as the transport answers it: each field prefixed with where it was sent; other errors unchanged. */
export function placeFields(err: unknown, placeOf: (field: string) => FieldPlace): unknown {
  if (!(err instanceof FieldError)) return err;
  const at = (path: string) => `${placeOf(path.split(/[.[]/)[0]!)}.${path}`;
  const first = err.details?.[0]?.path;
  const message = err.named && first !== undefined ? err.message.replace(first, at(first)) : err.message;
  return new AppError(err.code, message, { details: err.details?.map((d) => ({ ...d, path: at(d.path) })), extra: err.extra, headers: err.headers });
}
