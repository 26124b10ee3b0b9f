import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError, ErrorDetail } from '../errors.js';

/** The spec's error body: `message` repeats `error`; `traceId` is the request id. */
export interface ErrorBody {
  error: string;
  message: string;
  code: string;
  traceId: string;
  details?: ErrorDetail[];
  [extra: string]: unknown;
}

export function errorBody(traceId: string, code: string, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { error: message, message, code, traceId, ...extra };
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  const extra: Record<string, unknown> = { ...(err.extra ?? {}) };
  if (err.details) extra.details = err.details;
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorBody(req.id, err.code, err.message, extra));
}
