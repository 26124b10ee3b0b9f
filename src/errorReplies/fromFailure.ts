import type { FastifyError, FastifyRequest } from 'fastify';
import { AppError, placeFields, type ErrorDetail, type FieldPlace } from '../errors.js';
import { isConnectionError } from '../db/pool.js';

// What a failed request becomes (an AppError with the spec's code) and how it is logged. Shared by the API
// (http/plugins/errors.ts) and the web app (web/plugin.ts), which answer the same failures in their own forms.

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** `body.input.prompt`-style paths from Ajv's JSON pointers, naming the missing property where there is one. */
export function detailsFromValidation(context: string, errors: AjvLikeError[]): ErrorDetail[] {
  return errors.map((e) => {
    const segments = (e.instancePath ?? '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') segments.push(e.params.missingProperty);
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      segments.push(e.params.additionalProperty);
      return { path: [context, ...segments].join('.'), message: 'is not an allowed property' };
    }
    const message = e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid');
    return { path: [context, ...segments].join('.'), message };
  });
}

/** The 415 answer says what to send instead (the web app's forms also take application/x-www-form-urlencoded). */
export const UNSUPPORTED_MEDIA_TYPE_HINT = 'Unsupported Content-Type: send the body as JSON with the header Content-Type: application/json';

// Fastify's own error codes that are the client's fault, mapped onto our catalogue.
const FASTIFY_CODES: Record<string, [AppError['code'], string?]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['INVALID_JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['INVALID_JSON', 'Body is empty but Content-Type is application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', UNSUPPORTED_MEDIA_TYPE_HINT],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['VALIDATION_ERROR', 'Content-Length does not match the body'],
  FST_ERR_CTP_INVALID_TYPE: ['UNSUPPORTED_MEDIA_TYPE', UNSUPPORTED_MEDIA_TYPE_HINT],
  FST_ERR_BAD_URL: ['NOT_FOUND', 'Malformed URL'],
  FST_ERR_ASYNC_CONSTRAINT: ['VALIDATION_ERROR'],
};

/**
 * Where a request sent each field a service's FieldError names: a path parameter, a query parameter, or
 * else the body. Services name fields without knowing (errors.ts FieldError); HTTP says.
 */
export function requestPlaces(req: FastifyRequest): (field: string) => FieldPlace {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const query = (req.query ?? {}) as Record<string, unknown>;
  return (field) => (Object.hasOwn(params, field) ? 'params' : Object.hasOwn(query, field) ? 'query' : 'body');
}

/** The error a request is answered with; `req` places a service's field errors (requestPlaces). */
export function toAppError(err: FastifyError & { validationContext?: string }, req?: FastifyRequest): AppError {
  if (err instanceof AppError) return req ? placeFields(err, requestPlaces(req)) as AppError : err;
  if (err.validation) {
    const details = detailsFromValidation(err.validationContext ?? 'body', err.validation as AjvLikeError[]);
    const first = details[0];
    return new AppError('VALIDATION_ERROR', first ? `${first.path} ${first.message}` : 'Request is invalid', { details });
  }
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1] ?? err.message);
  // A JSON syntax error from the body parser.
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new AppError('INVALID_JSON', `Body is not valid JSON: ${err.message}`);
  }
  if (err.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', err.message);
  if (err.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', UNSUPPORTED_MEDIA_TYPE_HINT);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return new AppError('VALIDATION_ERROR', err.message);
  // Text PostgreSQL cannot store (NUL, an unpaired surrogate) that slipped past the input checks: the
  // client's input, so a 400 rather than a 500. The parsers name the field; this is the safety net.
  const pgCode = (err as { code?: string }).code;
  if (pgCode === '22021' || pgCode === '22P05' || (pgCode === '22P02' && /unicode|surrogate/i.test(err.message))) {
    return new AppError('VALIDATION_ERROR', 'The request contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate)');
  }
  // The database connection dropped mid-request (restart, fail-over): worth a retry, not a 500.
  if (isConnectionError(err)) return new AppError('SERVICE_UNAVAILABLE', 'The database connection was lost; retry the request', { headers: { 'Retry-After': '1' } });
  return new AppError('INTERNAL', 'Internal server error');
}

/**
 * How a failed request is logged. A failure the code expected (an AppError: a 4xx, a provider that is not
 * configured, a lost database connection mapped to 503) is an answer, not a fault: 4xx leave only the request
 * line, expected 5xx a warning with code and message; only the unexpected (500) is an error with its stack.
 */
export function logFailure(req: FastifyRequest, err: unknown, appErr: AppError): void {
  if (appErr.code === 'INTERNAL' || appErr.code === 'PRICING_ERROR') {
    req.log.error({ err }, 'request failed');
    return;
  }
  if (appErr.status >= 500) req.log.warn({ code: appErr.code, reason: appErr.message }, 'request refused');
  else if (!(err instanceof AppError)) req.log.debug({ code: appErr.code, reason: appErr.message }, 'request refused');
}
