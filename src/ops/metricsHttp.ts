import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { errorBody, sendError } from '../errorReplies/body.js';
import { newTraceId } from '../ids.js';
import type { Metrics } from './metrics.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** True when no token is configured, or the Authorization header carries it (compared in constant time). */
export function metricsAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = header ? BEARER.exec(header)?.[1] : undefined;
  if (!given) return false;
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}

/**
 * Counts every answered request under its route template (never the raw URL, which would make one series
 * per run id), and serves /metrics outside the API key scheme and outside the public OpenAPI document.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.addHook('onResponse', async (req, reply) => {
    metrics.observeRequest(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
    if (!metricsAuthorized(req.headers.authorization, token)) {
      return sendError(req, reply, new AppError('UNAUTHORIZED', 'Send the metrics token: Authorization: Bearer …', { headers: { 'WWW-Authenticate': 'Bearer' } }));
    }
    const text = await metrics.text();
    return reply.type(metrics.contentType).send(text);
  });
}

/** A bare listener for /metrics alone, for processes without the API (workers, deliverers). */
export async function startMetricsListener(metrics: Metrics, host: string, port: number, token: string | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const fail = (status: number, code: string, message: string) => {
      const traceId = newTraceId();
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': traceId, ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
      res.end(JSON.stringify(errorBody(traceId, code, message)));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return fail(404, 'NOT_FOUND', `No route ${req.method} ${path}`);
    if (req.method !== 'GET') return fail(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on /metrics`);
    if (!metricsAuthorized(req.headers.authorization, token)) return fail(401, 'UNAUTHORIZED', 'Send the metrics token: Authorization: Bearer …');
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(text);
      },
      () => fail(503, 'SERVICE_UNAVAILABLE', 'Metrics could not be collected'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
