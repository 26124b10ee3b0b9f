import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError } from '../../errors.js';
import type { Socket } from 'node:net';
import { errorBody, sendError } from '../../errorReplies/body.js';
import { logFailure, toAppError } from '../../errorReplies/fromFailure.js';
import { newTraceId } from '../../ids.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Error shaping for every non-2xx answer: thrown errors, validation failures, unknown routes (404) and
 * known paths asked with the wrong method (405, with Allow).
 */
export function registerErrorHandling(app: FastifyInstance, opts: {
  /** An HTML page for a browser that asked for an unknown page outside the API; undefined keeps the JSON body. */
  browserPage?: (req: FastifyRequest, err: AppError) => string | undefined;
} = {}): void {
  const send = (req: FastifyRequest, reply: FastifyReply, err: AppError) => {
    const page = opts.browserPage?.(req, err);
    if (page === undefined) return sendError(req, reply, err);
    if (err.headers) reply.headers(err.headers);
    return reply.code(err.status).type('text/html; charset=utf-8').send(page);
  };
  const known = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      try {
        known.on(m as any, route.url, () => {});
      } catch {
        // Duplicate registrations (e.g. prefix variants) are fine to skip.
      }
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const appErr = toAppError(err, req);
    logFailure(req, err, appErr);
    return sendError(req, reply, appErr);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== req.method && known.find(m, path));
    if (allowed.length > 0 && !known.find(req.method as any, path)) {
      return send(req, reply, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`, {
        headers: { Allow: allowed.join(', ') },
      }));
    }
    return send(req, reply, new AppError('NOT_FOUND', `No route ${req.method} ${path}`));
  });
}

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (headers over the size limit, malformed
 * request lines, a client too slow to send its request) still get the spec's error body and a trace id,
 * instead of Fastify's own `{error, message, statusCode}`. The connection is closed after, as Node does.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'PAYLOAD_TOO_LARGE', 'Request headers are larger than the server accepts']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'VALIDATION_ERROR', 'The request was not received in time']
        : [400, 'Bad Request', 'VALIDATION_ERROR', 'Malformed HTTP request'];
  const traceId = newTraceId();
  const body = JSON.stringify(errorBody(traceId, code, message));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${traceId}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
