import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextWith, inSpan, spanLogFields, startSpan, tracingEnabled, type Attrs } from '../../tracing/tracing.js';
import type { Span } from '@opentelemetry/api';

/** Each request's server span, while traces are on. */
// Probes and scrapes answer every few seconds and say nothing a trace needs: no span for them.
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * A server span for every request while traces are on (tracing/tracing.ts), continuing a caller's W3C
 * `traceparent` header; its lines in the log carry its trace_id and span_id. Registers nothing when traces
 * are off. The span is kept on the request rather than made the active context: Fastify parses the body
 * and calls the handler from stream events that do not carry a context set in a hook, so work under the
 * request names its parent explicitly (requestSpan).
 */
export function registerTracing(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  app.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    if (route !== undefined && UNTRACED.has(route)) return done();
    const span = startSpan(`${req.method} ${route ?? 'unmatched'}`, {
      'http.request.method': req.method,
      'http.route': route,
      'url.path': req.url.split('?')[0],
      'atelier.request_id': req.id,
    }, { kind: 'server', parent: req.headers.traceparent as string | undefined ?? null });
    if (span) {
      spans.set(req, span);
      req.log = req.log.child(spanLogFields(span));
    }
    done();
  });
  const end = (req: FastifyRequest, status: number | undefined) => {
    const span = spans.get(req);
    if (!span) return;
    spans.delete(req);
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    // Server errors only: a 4xx is the client's, and the span records it in its status code attribute.
    if (status === undefined || status >= 500) span.setStatus({ code: 2 /* ERROR */, message: status === undefined ? 'request aborted' : `HTTP ${status}` });
    span.end();
  };
  app.addHook('onResponse', (req, reply, done) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    end(req, undefined);
    done();
  });
}

/**
 * Runs work a request starts (the run it creates) in its own span under the request's server span; `fn`
 * may add attributes (the new run's id, what it reserved). Off: just `fn`.
 */
export function underRequest<T>(req: FastifyRequest, name: string, attributes: Attrs, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn(undefined);
  return inSpan(name, attributes, fn, { parent: contextWith(spans.get(req)) ?? null });
}

/**
 * The run span: a run's creation under its request (POST /v1/runs, POST /v1/nodes/{nodeType}/run). The
 * run's insert writes this span's traceparent on the run row, so the worker's node and engine spans are its
 * children, in whatever process runs them.
 */
export function tracedRunCreate<T extends { run: any; replayed: boolean }>(req: FastifyRequest, attributes: Attrs, create: () => Promise<T>): Promise<T> {
  return underRequest(req, 'atelier.run', attributes, async (span) => {
    const created = await create();
    span?.setAttributes({
      'atelier.run.id': created.run.id,
      'atelier.run.replayed': created.replayed,
      'atelier.microcredits.reserved': Number(created.run.reserved_microcredits ?? 0),
    });
    return created;
  });
}
