import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * OpenTelemetry traces, off unless the operator asks for them with the standard variables (docs/deploy.md
 * "Traces"). Everything else in the service calls only the functions here: while tracing is off they run
 * the wrapped work directly and touch no span, and the SDK (./sdk.ts) is never even loaded; the API package
 * imported here is a few small modules with no-op defaults.
 *
 * A trace crosses processes as a W3C `traceparent` string: the API writes its run span's on the run row
 * (runs.trace_parent), the worker continues it for every node, and the engine child gets the engine span's
 * through the child protocol (execution/protocol.ts ChildTask.traceparent).
 */

let enabled = false;
let stopSdk: (() => Promise<void>) | undefined;
let flushSdk: (() => Promise<void>) | undefined;

/** Whether the environment turns traces on: OTLP asked for by OTEL_TRACES_EXPORTER or by an OTLP endpoint. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** True once startTracing turned traces on in this process. */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Starts the SDK in this process when the environment asks for traces (`processRole`: api, worker, engine
 * ... becomes the resource attribute `atelier.process`). Idempotent; a no-op, with no SDK loaded, when off.
 */
export async function startTracing(processRole: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (enabled || !tracingWanted(env)) return;
  const sdk = await import('./sdk.js');
  const started = sdk.startSdk(processRole);
  stopSdk = started.shutdown;
  flushSdk = started.flush;
  enabled = true;
}

/** Sends the spans still buffered (a process about to stop, or an engine child between tasks). */
export async function flushTracing(): Promise<void> {
  if (flushSdk) await flushSdk().catch(() => {});
}

/** Flushes and stops the SDK: the last step of a graceful stop. */
export async function stopTracing(): Promise<void> {
  const stop = stopSdk;
  enabled = false;
  stopSdk = flushSdk = undefined;
  if (stop) await stop().catch(() => {});
}

/** Span attributes as callers have them: bigint microcredits and absent values are fine (clean). */
export type Attrs = Record<string, unknown>;

const tracer = () => trace.getTracer('atelier');

export interface SpanOptions {
  kind?: 'internal' | 'server' | 'client';
  /** The parent: a W3C traceparent from another process, or a context; the active span when absent. */
  parent?: string | null | Context;
}

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };

/** The context a parent option names (undefined: the active one). */
function parentContext(parent: SpanOptions['parent']): Context {
  if (parent === undefined) return context.active();
  if (parent === null) return ROOT_CONTEXT;
  if (typeof parent === 'string') return contextOfTraceparent(parent);
  return parent;
}

/**
 * Runs `fn` inside a new span (the active one while it runs), ends the span when `fn` settles, and marks
 * it as an error when `fn` throws. Off: just `fn(undefined)`. `fn` may set more attributes on the span.
 */
export async function inSpan<T>(name: string, attributes: Attrs, fn: (span: Span | undefined) => Promise<T>, opts: SpanOptions = {}): Promise<T> {
  if (!enabled) return fn(undefined);
  const span = tracer().startSpan(name, { kind: KINDS[opts.kind ?? 'internal'], attributes: clean(attributes) }, parentContext(opts.parent));
  try {
    return await context.with(trace.setSpan(parentContext(opts.parent), span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Starts a span that the caller ends (an HTTP request, whose end is an event). Undefined while off. */
export function startSpan(name: string, attributes: Attrs, opts: SpanOptions = {}): Span | undefined {
  if (!enabled) return undefined;
  return tracer().startSpan(name, { kind: KINDS[opts.kind ?? 'internal'], attributes: clean(attributes) }, parentContext(opts.parent));
}

/** The context in which `span` is the active span (to run work under it with `inSpan`'s `parent`). */
export function contextWith(span: Span | undefined): Context | undefined {
  return span ? trace.setSpan(context.active(), span) : undefined;
}

/** Records an error on a span and marks it failed. */
export function failSpan(span: Span | undefined, err: unknown): void {
  if (!span) return;
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500) });
}

/** Adds attributes to the active span, if any (e.g. what a settle charged); `error`: the work it covers failed so. */
export function annotate(attributes: Attrs, error?: string | null): void {
  if (!enabled) return;
  const span = trace.getActiveSpan();
  span?.setAttributes(clean(attributes));
  if (span && error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, 500) });
}

/** The active span as a W3C traceparent (`00-<trace id>-<span id>-<flags>`), or null (none, or tracing off). */
export function currentTraceparent(): string | null {
  if (!enabled) return null;
  const sc = trace.getActiveSpan()?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & TraceFlags.SAMPLED ? '01' : '00')}`;
}

/** Log fields of the active span (pino's mixin, logger.ts): trace_id and span_id, or nothing. */
export function traceLogFields(): Record<string, string> {
  if (!enabled) return {};
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/** Log fields of one span (a request's logger, which outlives the active context). */
export function spanLogFields(span: Span | undefined): Record<string, string> {
  if (!span) return {};
  const sc = span.spanContext();
  return { trace_id: sc.traceId, span_id: sc.spanId };
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A context whose remote parent is this traceparent; the root context when it is missing or malformed. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  const m = TRACEPARENT.exec((traceparent ?? '').trim().toLowerCase());
  if (!m || m[1] === 'ff') return ROOT_CONTEXT;
  const sc = { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(sc) ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}

/** Attribute values OpenTelemetry takes: bigint (microcredits) as a number, undefined and null dropped. */
function clean(a: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined || v === null) continue;
    out[k] = typeof v === 'bigint' ? Number(v) : (v as Attributes[string]);
  }
  return out;
}

/**
 * Runs `fn` with a remote parent from another process as the active context (an engine child's task,
 * whose parent is the worker's engine span). Off, or no parent: just `fn`.
 */
export function underTraceparent<T>(traceparent: string | null | undefined, fn: () => Promise<T>): Promise<T> {
  if (!enabled || !traceparent) return fn();
  return context.with(contextOfTraceparent(traceparent), fn);
}

/**
 * One HTTP request to a model provider (or a download of a file it answered) as a client span (`POST fal.run`), with the provider's label, method,
 * host and path (never the query, which may hold a key) and the status it answered; `outcome` reads the
 * status or the error from what `fn` returned. Off: just `fn`.
 */
export function providerRequest<T>(provider: string, method: string, target: URL | string, fn: () => Promise<T>, outcome: (r: T) => { status?: number; error?: Error }): Promise<T> {
  if (!enabled) return fn();
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return fn(); // the request itself says what is wrong with its URL
  }
  return inSpan(`${method} ${url.host}`, {
    'atelier.provider': provider,
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'url.full': `${url.origin}${url.pathname}`,
  }, async (span) => {
    const r = await fn();
    const o = outcome(r);
    if (o.status !== undefined) span?.setAttribute('http.response.status_code', o.status);
    if (o.error) {
      span?.setAttribute('error.type', o.status !== undefined ? String(o.status) : o.error.name);
      failSpan(span, o.error);
    }
    return r;
  }, { kind: 'client' });
}

/**
 * One engine call (in the worker: it covers the wait for an engine child and the child's work) as the span
 * `atelier.engine`: the model, its mode, the engine and the route, which for a remote engine is the adapter
 * and the provider's model (`openai/gpt-5.4`, `fal/fal-ai/flux/dev`). Off: just `fn`.
 */
export function engineCall<T>(c: { model: string; subModel: string; engine: string; options?: Record<string, unknown>; attempt: number }, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const providerModel = typeof c.options?.model === 'string' ? c.options.model : undefined;
  return inSpan('atelier.engine', {
    'atelier.model': c.model,
    'atelier.sub_model': c.subModel,
    'atelier.engine': c.engine,
    'atelier.route': providerModel ? `${c.engine}/${providerModel}` : c.engine,
    'atelier.engine.attempt': c.attempt,
  }, fn);
}

/**
 * One webhook delivery attempt as a client span (`webhook POST receiver.example.com`) in the trace of the
 * run it reports on (`traceparent`, the run row's). `fn` answers the receiver's status (a throw: no answer).
 * Off: just `fn`.
 */
export function webhookAttempt(traceparent: string | null | undefined, a: { runId?: string; eventId: string; eventType?: string; attempt: number; url: string }, fn: () => Promise<number>): Promise<number> {
  if (!enabled) return fn();
  let url: URL;
  try {
    url = new URL(a.url);
  } catch {
    return fn();
  }
  return inSpan(`webhook POST ${url.host}`, {
    'atelier.run.id': a.runId,
    'atelier.event.id': a.eventId,
    'atelier.event.type': a.eventType,
    'atelier.webhook.attempt': a.attempt,
    'http.request.method': 'POST',
    'server.address': url.hostname,
    'url.full': `${url.origin}${url.pathname}`,
  }, async (span) => {
    const status = await fn();
    span?.setAttribute('http.response.status_code', status);
    if (status < 200 || status >= 300) span?.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
    return status;
  }, { kind: 'client', parent: traceparent ?? null });
}
