import { AtelierError } from './errors.js';
import { backoffMs, isRetryable, parseRetryAfter, sleep } from './retry.js';
import type { ErrorBody } from './types-common.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  apiKey: string;
  /** Origin of the service, e.g. `http://127.0.0.1:8080` (a trailing slash is ignored). */
  baseUrl: string;
  /** Replaces the global fetch (tests, proxies, instrumentation). */
  fetch?: FetchLike;
  /** Extra attempts after the first on 429, 5xx and network errors (default 3). */
  maxRetries?: number;
  /** Time limit of one attempt in milliseconds (default 60 000). */
  timeoutMs?: number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A body sent as it is (a file's bytes), with its own Content-Type in headers; never JSON-encoded. */
  rawBody?: Uint8Array | Blob;
  headers?: Record<string, string>;
  /** Return the raw Response (files, event streams) instead of parsed JSON. */
  raw?: boolean;
  /** Safe to repeat after a 5xx although the method is POST (reads like estimates and batch gets). */
  idempotent?: boolean;
  /** No per-attempt time limit (long-lived event streams). */
  noTimeout?: boolean;
}

/** The HTTP layer: auth, JSON, error bodies → AtelierError, and the retry loop. */
export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string;
  private readonly fetchFn: FetchLike;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(opts: ClientOptions) {
    if (!opts.apiKey) throw new TypeError('apiKey is required');
    if (!opts.baseUrl) throw new TypeError('baseUrl is required');
    this.apiKey = opts.apiKey;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    // Bound late so a test or polyfill replacing globalThis.fetch after construction is still used.
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxRetries = Math.max(0, opts.maxRetries ?? 3);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  url(path: string, query?: RequestOptions['query']): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const s = qs.toString();
    return this.baseUrl + path + (s ? `?${s}` : '');
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path.startsWith('http') ? path : this.url(path, opts.query), opts, true);
    if (opts.raw) return res as unknown as T;
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (cause) {
      // A 2xx that is not JSON means something between us and the service answered (a proxy page).
      throw new AtelierError({ status: res.status, code: 'INVALID_RESPONSE', message: `${method} ${path} answered ${res.status} with a body that is not JSON`, traceId: res.headers.get('x-request-id') ?? undefined, cause });
    }
  }

  /** Sends with retries; resolves with a 2xx Response or throws AtelierError. */
  async send(method: string, url: string, opts: RequestOptions, withKey: boolean): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (withKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | Uint8Array | Blob | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const hasKey = opts.idempotent === true || Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');

    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < this.maxRetries;
      let res: Response;
      const controller = new AbortController();
      const timer = opts.noTimeout ? undefined : setTimeout(() => controller.abort(), this.timeoutMs);
      try {
        res = await this.fetchFn(url, { method, headers, body: body as BodyInit | undefined, signal: controller.signal });
      } catch (cause) {
        const timedOut = controller.signal.aborted;
        if (canRetry && isRetryable(method, hasKey, 'network')) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw new AtelierError({
          status: 0, code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR', cause,
          message: timedOut ? `${method} ${url} timed out after ${this.timeoutMs} ms` : `${method} ${url} failed: ${(cause as Error)?.message ?? cause}`,
        });
      } finally {
        // Streams keep reading after the headers arrive; the timer only guards getting them.
        if (timer) clearTimeout(timer);
      }
      if (res.ok) return res;

      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      if (canRetry && isRetryable(method, hasKey, res.status, retryAfter)) {
        await res.body?.cancel().catch(() => {});
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffMs(attempt));
        continue;
      }
      throw await toError(res, retryAfter);
    }
  }
}

async function toError(res: Response, retryAfter: number | undefined): Promise<AtelierError> {
  const text = await res.text().catch(() => '');
  let body: Partial<ErrorBody> = {};
  try {
    body = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    // Not our error body (a proxy's HTML page, say): keep the status and the start of the text.
  }
  return new AtelierError({
    status: res.status,
    code: body.code ?? `HTTP_${res.status}`,
    message: body.message ?? body.error ?? (text.slice(0, 200) || res.statusText || `HTTP ${res.status}`),
    traceId: body.traceId ?? res.headers.get('x-request-id') ?? undefined,
    details: body.details,
    nodeErrors: body.nodeErrors,
    retryAfter,
  });
}
