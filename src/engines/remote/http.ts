import { EngineError, EngineInputError } from '../types.js';
import { abortReason, sleep } from './signals.js';
import { providerRequest } from '../../tracing/tracing.js';

/**
 * The one HTTP client of the provider adapters: JSON or multipart requests to an operator-configured
 * base URL, retried with exponential backoff and jitter on 429 (honouring Retry-After), 5xx and network
 * failures, each attempt bounded by a time-out and the run's signal. Failures become EngineErrors whose
 * text names the provider and what went wrong, with the credentials scrubbed out.
 *
 * Provider APIs are the operator's own configuration (often a private Ollama or ComfyUI), so these
 * requests do not go through the outbound guard; files those providers point at do (outputs.ts).
 */

export interface RetryPolicy {
  /** Extra attempts after the first. */
  retries: number;
  baseDelayMs: number;
  /** Longest wait between attempts, and the longest Retry-After honoured before giving up. */
  maxDelayMs: number;
  /** One attempt's time limit (headers and body). */
  requestTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000, requestTimeoutMs: 60_000 };

export interface ProviderClientConfig {
  /** Short id for messages ("fal", "Replicate"). */
  label: string;
  baseUrl: string;
  /** Sent with every request (authorization). */
  headers: Record<string, string>;
  /** Strings that must never appear in an error message (API keys). */
  secrets: string[];
  /** What the operator should check on 401/403, e.g. "FAL_KEY". */
  credentialHint?: string;
  retry?: Partial<RetryPolicy>;
}

export interface ProviderRequestInit {
  method?: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (multipart FormData, bytes). */
  body?: FormData | Buffer | string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** Epoch ms: no attempt or wait goes past it. */
  deadline?: number;
  /**
   * Which failures are retried: true (default) every 429, 5xx, time-out and network error; 'safe' only
   * those where the server cannot have acted (429, connection refused, unknown host) — for requests
   * that start paid work and must not run twice; false none.
   */
  retry?: boolean | 'safe';
  /** With retry 'safe': more statuses at which the provider documents the request was not acted on (fal: 502, 503, 504). */
  safeStatuses?: number[];
  /** This request's own time limit, when it needs longer than the policy's (e.g. Prefer: wait). */
  timeoutMs?: number;
  /** Statuses returned to the caller instead of thrown (e.g. 400 ALREADY_COMPLETED on a cancel). */
  accept?: number[];
}

export interface ProviderResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

/** What a provider said when it refused: kept for callers that branch on status. */
export class ProviderHttpError extends EngineError {
  constructor(message: string, readonly status: number, retryable: boolean) {
    super(message, retryable);
  }
}

/** A 400/422: the provider judged the input, so the caller can fix it. */
export class ProviderInputError extends EngineInputError {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

/**
 * No answer came: a time-out or a broken connection. `maybeActed` is false only when the request cannot
 * have reached the provider (connection refused, unknown host) — otherwise the provider may have acted on it.
 */
export class ProviderUnansweredError extends EngineError {
  constructor(message: string, readonly maybeActed: boolean) {
    super(message, true);
  }
}

/** The HTTP status behind a provider failure, if there was one. */
export function httpStatus(err: unknown): number | undefined {
  return err instanceof ProviderHttpError || err instanceof ProviderInputError ? err.status : undefined;
}

export class ProviderClient {
  readonly policy: RetryPolicy;
  readonly base: URL;

  constructor(readonly cfg: ProviderClientConfig) {
    this.policy = { ...DEFAULT_RETRY, ...cfg.retry };
    this.base = new URL(cfg.baseUrl.endsWith('/') ? cfg.baseUrl : `${cfg.baseUrl}/`);
  }

  /** Resolves a path against the base URL; absolute URLs must stay on the provider's origin so the key never leaves it. */
  url(pathOrUrl: string): URL {
    if (/^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl)) {
      const u = new URL(pathOrUrl);
      if (u.origin !== this.base.origin) throw new EngineError(`${this.cfg.label} pointed at another host (${u.host}); refusing to send credentials there`);
      return u;
    }
    return new URL(pathOrUrl.replace(/^\/+/, ''), this.base);
  }

  /** A buffered request, retried as the policy says. */
  async request(path: string, init: ProviderRequestInit): Promise<ProviderResponse> {
    const res = await this.send(path, init, false);
    return res as ProviderResponse;
  }

  /** A request whose body is read by the caller (server-sent events); only getting the response head is retried and timed. */
  async stream(path: string, init: ProviderRequestInit): Promise<Response> {
    return (await this.send(path, init, true)) as Response;
  }

  /** Removes secrets from text that may echo them (error bodies, URLs). */
  scrub(text: string): string {
    let out = text;
    for (const s of this.cfg.secrets) if (s && s.length >= 4) out = out.split(s).join('***');
    return out;
  }

  private async send(path: string, init: ProviderRequestInit, streaming: boolean): Promise<ProviderResponse | Response> {
    const url = this.url(path);
    const p = this.policy;
    const attempts = init.retry === false ? 1 : p.retries + 1;
    let last: Error | undefined;
    let tries = 0;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (init.signal.aborted) throw abortReason(init.signal);
      const left = init.deadline ? init.deadline - Date.now() : Infinity;
      if (left <= 0) throw last ?? new EngineError(`${this.cfg.label}: out of time before the request could be sent`, true);
      const timeoutMs = Math.min(init.timeoutMs ?? p.requestTimeoutMs, left);
      const outcome = await providerRequest(this.cfg.label, init.method ?? (init.body === undefined && init.json === undefined ? 'GET' : 'POST'), url,
        () => this.attempt(url, init, timeoutMs, streaming), (o) => (o.kind === 'ok' ? { status: o.value.status } : { status: httpStatus(o.error), error: o.error }));
      tries++;
      if (outcome.kind === 'ok') return outcome.value;
      // Cut short by the run's deadline: the earlier failure says more than "did not answer in 3 ms".
      if (outcome.timedOut && timeoutMs === left && last) break;
      last = outcome.error;
      if (!outcome.retryable || attempt === attempts - 1) break;
      if (init.retry === 'safe' && !outcome.unprocessed && !(outcome.error instanceof ProviderHttpError && init.safeStatuses?.includes(outcome.error.status))) break;
      const wait = waitBeforeRetry(p, attempt, outcome.retryAfterMs);
      if (wait === undefined) {
        // The provider asks for longer than we wait: fail now, and say when it would take work again.
        last.message += ` (it asks to retry after ${Math.ceil(outcome.retryAfterMs! / 1000)} s)`;
        break;
      }
      if (init.deadline && Date.now() + wait >= init.deadline) break;
      await sleep(wait, init.signal);
    }
    if (tries > 1) last!.message += ` (gave up after ${tries} attempts)`;
    throw last!;
  }

  private async attempt(
    url: URL,
    init: ProviderRequestInit,
    timeoutMs: number,
    streaming: boolean,
  ): Promise<{ kind: 'ok'; value: ProviderResponse | Response } | { kind: 'fail'; error: Error; retryable: boolean; retryAfterMs?: number; unprocessed?: boolean; timedOut?: boolean }> {
    const label = this.cfg.label;
    // Own controller rather than AbortSignal.timeout: a stream's time limit ends when its head arrives,
    // while the run's signal must go on reaching the body.
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, timeoutMs);
    const onAbort = () => ctl.abort(init.signal.reason);
    init.signal.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { accept: 'application/json', ...this.cfg.headers, ...init.headers };
    let body: FormData | Buffer | string | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] = 'application/json';
    }
    let res: Response;
    let bytes: Buffer | undefined;
    try {
      res = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body: Buffer.isBuffer(body) ? new Uint8Array(body) : body, signal: ctl.signal, redirect: 'error' });
      if (!streaming || !res.ok) bytes = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      init.signal.removeEventListener('abort', onAbort);
      if (init.signal.aborted) throw abortReason(init.signal);
      if (timedOut) {
        return { kind: 'fail', retryable: true, timedOut: true, error: new ProviderUnansweredError(`${label} did not answer within ${fmtMs(timeoutMs)} (${url.pathname})`, true) };
      }
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      const unprocessed = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(cause?.code ?? '');
      return { kind: 'fail', retryable: true, unprocessed, error: new ProviderUnansweredError(`cannot reach ${label} at ${url.host}: ${this.scrub(why)}`, !unprocessed) };
    } finally {
      clearTimeout(timer);
    }
    if (!streaming || !res.ok) init.signal.removeEventListener('abort', onAbort);
    if (res.ok || init.accept?.includes(res.status)) {
      if (streaming && res.ok) return { kind: 'ok', value: res };
      const b = bytes!;
      return {
        kind: 'ok',
        value: { status: res.status, headers: res.headers, body: b, text: () => b.toString('utf8'), json: <T>() => parseJson<T>(b, label) },
      };
    }
    const detail = this.scrub(errorDetail(bytes!));
    const status = res.status;
    const suffix = detail ? `: ${detail}` : '';
    if (status === 429) {
      return {
        kind: 'fail',
        retryable: true,
        unprocessed: true,
        retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
        error: new ProviderHttpError(`${label} is rate limiting requests (HTTP 429)${suffix}`, status, true),
      };
    }
    if (status >= 500 && status !== 501) {
      return { kind: 'fail', retryable: true, error: new ProviderHttpError(`${label} failed (HTTP ${status})${suffix}`, status, true) };
    }
    if (status === 401 || status === 403) {
      const hint = this.cfg.credentialHint ? `; check ${this.cfg.credentialHint}` : '';
      return { kind: 'fail', retryable: false, error: new ProviderHttpError(`${label} refused the credentials (HTTP ${status})${suffix}${hint}`, status, false) };
    }
    if (status === 400 || status === 422) {
      return { kind: 'fail', retryable: false, error: new ProviderInputError(`${label} rejected the input (HTTP ${status})${suffix}`, status) };
    }
    if (status === 404) {
      return { kind: 'fail', retryable: false, error: new ProviderHttpError(`${label} answered not found (HTTP 404) for ${url.pathname}${suffix}`, status, false) };
    }
    return { kind: 'fail', retryable: false, error: new ProviderHttpError(`${label} answered HTTP ${status}${suffix}`, status, false) };
  }
}

function parseJson<T>(b: Buffer, label: string): T {
  try {
    return JSON.parse(b.toString('utf8')) as T;
  } catch {
    throw new EngineError(`${label} sent a response that is not JSON: ${b.subarray(0, 120).toString('utf8')}`);
  }
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** Retry-After in delta-seconds or an HTTP date; undefined when absent or unreadable. */
/**
 * How long to wait before retry number `attempt + 1`: exponential backoff from baseDelayMs, capped at
 * maxDelayMs, with jitter (half to all of it) to spread the retries of many runs apart; at least what the
 * provider's Retry-After asks, and undefined (do not retry) when that is more than maxDelayMs. Pure.
 */
export function waitBeforeRetry(p: { baseDelayMs: number; maxDelayMs: number }, attempt: number, retryAfter: number | undefined, random = Math.random): number | undefined {
  if (retryAfter !== undefined && retryAfter > p.maxDelayMs) return undefined;
  const ceiling = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** attempt);
  const wait = ceiling / 2 + random() * (ceiling / 2);
  return retryAfter === undefined ? wait : Math.max(wait, retryAfter);
}

export function retryAfterMs(h: string | null): number | undefined {
  if (!h) return undefined;
  if (/^\d+(\.\d+)?$/.test(h.trim())) return Math.round(Number(h) * 1000);
  const t = Date.parse(h);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

/** The human part of a provider's error body, whichever of the usual shapes it has. */
export function errorDetail(body: Buffer): string {
  const text = body.toString('utf8').trim();
  if (!text) return '';
  let out: string;
  try {
    out = describeErrorJson(JSON.parse(text)) ?? text;
  } catch {
    out = text.startsWith('<') ? '' : text; // HTML error pages say nothing useful
  }
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

function describeErrorJson(j: unknown): string | undefined {
  if (typeof j === 'string') return j;
  if (!j || typeof j !== 'object') return undefined;
  const o = j as Record<string, unknown>;
  // OpenAI: { error: { message, type, code } }; ComfyUI: { error: { type, message, details }, node_errors }
  if (o.error && typeof o.error === 'object') {
    const e = o.error as Record<string, unknown>;
    const parts = [e.message, e.details].filter((x) => typeof x === 'string' && x) as string[];
    const nodes = describeNodeErrors(o.node_errors);
    if (parts.length || nodes) return [...parts, nodes].filter(Boolean).join(': ');
  }
  if (typeof o.error === 'string') return o.error;
  // Deepgram: { err_code, err_msg, request_id }
  if (typeof o.err_msg === 'string') return typeof o.err_code === 'string' ? `${o.err_code}: ${o.err_msg}` : o.err_msg;
  // ElevenLabs: { detail: { status, message } }
  if (o.detail && typeof o.detail === 'object' && !Array.isArray(o.detail) && typeof (o.detail as Record<string, unknown>).message === 'string') {
    const d = o.detail as Record<string, unknown>;
    return typeof d.status === 'string' ? `${d.message as string} (${d.status})` : (d.message as string);
  }
  // FastAPI-style (fal) and Replicate problem details: { detail: string | [{ loc, msg }] , title }
  if (typeof o.detail === 'string') return o.detail;
  if (Array.isArray(o.detail)) {
    return o.detail
      .map((d) => {
        const x = d as { loc?: unknown[]; msg?: string };
        const loc = Array.isArray(x.loc) ? x.loc.filter((l) => l !== 'body').join('.') : '';
        return loc ? `${loc}: ${x.msg ?? ''}` : (x.msg ?? JSON.stringify(d));
      })
      .join('; ');
  }
  if (typeof o.message === 'string') return o.message;
  if (typeof o.title === 'string') return o.title;
  return undefined;
}

function describeNodeErrors(ne: unknown): string {
  if (!ne || typeof ne !== 'object') return '';
  const out: string[] = [];
  for (const [id, v] of Object.entries(ne as Record<string, { errors?: Array<{ message?: string; details?: string }>; class_type?: string }>)) {
    for (const e of v.errors ?? []) out.push(`node ${id}${v.class_type ? ` (${v.class_type})` : ''}: ${e.message ?? ''}${e.details ? ` ${e.details}` : ''}`);
  }
  return out.join('; ');
}
