import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrl, describeUrl, type CheckedUrl, type Resolver } from './checkUrl.js';
import { OutboundError } from './errors.js';

export interface GuardedFetchOptions {
  /** Operator switch: allow internal addresses (and, unless allowHttp says otherwise, plain http). */
  allowPrivate?: boolean;
  /** Allow plain http:. Defaults to allowPrivate: a public fetch is https only. */
  allowHttp?: boolean;
  /** Largest body accepted; the download stops as soon as it is passed. */
  maxBytes?: number;
  /** Total time for every hop, headers and body. */
  timeoutMs?: number;
  signal?: AbortSignal;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  maxRedirects?: number;
  /** Injected in tests. */
  resolve?: Resolver;
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  /** The URL of the last hop (after redirects). */
  url: string;
  redirects: number;
  body: Buffer;
  ok: boolean;
  text(): string;
  json(): unknown;
}

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials for one origin and must not follow a redirect to another. */
const ORIGIN_BOUND = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * An outbound HTTP request that cannot be pointed at internal addresses. Each hop is checked with
 * checkUrl, and the socket connects only to the addresses that check approved (a pinned `lookup`), so a
 * host that answers DNS with a public address first and a private one on the second query (DNS
 * rebinding) gains nothing. Redirects are followed by hand so every hop is checked.
 */
export async function guardedFetch(input: string | URL, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? 5;
  const allowHttp = opts.allowHttp ?? opts.allowPrivate ?? false;

  // One controller for the whole exchange: the caller's signal or the total time-out ends it.
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, timeoutMs);
  const onAbort = () => ctl.abort();
  if (opts.signal?.aborted) ctl.abort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const stopped = () =>
    timedOut
      ? new OutboundError('timeout', `request to ${describeUrl(input)} timed out after ${timeoutMs} ms`)
      : new OutboundError('aborted', `request to ${describeUrl(input)} was aborted`);

  try {
    let url = String(input);
    let method = (opts.method ?? 'GET').toUpperCase();
    let body = opts.body;
    let headers = { ...(opts.headers ?? {}) };
    for (let hop = 0; ; hop++) {
      if (ctl.signal.aborted) throw stopped();
      const checked = await checkUrl(url, { allowPrivate: opts.allowPrivate, allowHttp, resolve: opts.resolve });
      if (ctl.signal.aborted) throw stopped();
      const res = await requestOnce(checked, { method, headers, body, maxBytes, signal: ctl.signal, stopped });
      const location = res.headers.location;
      if (REDIRECTS.has(res.status) && location) {
        if (hop >= maxRedirects) throw new OutboundError('too-many-redirects', `more than ${maxRedirects} redirects from ${describeUrl(input)}`);
        const next = new URL(location, checked.url);
        if (next.origin !== checked.url.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !ORIGIN_BOUND.includes(k.toLowerCase())));
        }
        // 303 always, and 301/302 after a POST by long browser practice, become a GET without a body.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
        }
        url = next.href;
        continue;
      }
      return finish(res, checked.url.href, hop);
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

interface RawResponse {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function finish(res: RawResponse, url: string, redirects: number): GuardedResponse {
  return {
    ...res,
    url,
    redirects,
    ok: res.status >= 200 && res.status < 300,
    text: () => res.body.toString('utf8'),
    json: () => JSON.parse(res.body.toString('utf8')) as unknown,
  };
}

/** A lookup that answers only with the addresses checkUrl approved: no second DNS query happens. */
function pinnedLookup(checked: CheckedUrl): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === 'object' ? options.family : undefined;
    const list = checked.addresses.filter((a) => !family || a.family === family);
    const cb = callback as unknown as (err: Error | null, address: unknown, family?: number) => void;
    if (list.length === 0) {
      cb(new OutboundError('dns', `no approved address of family ${family} for ${checked.hostname}`), '', 0);
      return;
    }
    if (typeof options === 'object' && options.all) cb(null, list);
    else cb(null, list[0]!.address, list[0]!.family);
  };
}

function requestOnce(
  checked: CheckedUrl,
  o: { method: string; headers: Record<string, string>; body?: string | Buffer; maxBytes: number; signal: AbortSignal; stopped: () => OutboundError },
): Promise<RawResponse> {
  const { url } = checked;
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      o.signal.removeEventListener('abort', onAbort);
      req.destroy();
      reject(err);
    };
    const onAbort = () => fail(o.stopped());
    const req = mod.request(
      {
        protocol: url.protocol,
        host: checked.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: o.method,
        headers: { 'user-agent': 'atelier', ...o.headers, host: url.host },
        // A fresh connection per hop: a pooled socket could have been opened to another address.
        agent: false,
        lookup: pinnedLookup(checked),
        ...(url.username || url.password
          ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
          : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // Redirect bodies are not needed; stop reading at once.
        if (REDIRECTS.has(status) && res.headers.location) {
          settled = true;
          o.signal.removeEventListener('abort', onAbort);
          res.destroy();
          resolve({ status, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.alloc(0) });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > o.maxBytes) {
          fail(new OutboundError('too-large', `response from ${describeUrl(url)} is ${declared} bytes, over the limit of ${o.maxBytes}`));
          return;
        }
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > o.maxBytes) {
            fail(new OutboundError('too-large', `response from ${describeUrl(url)} is over the limit of ${o.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          o.signal.removeEventListener('abort', onAbort);
          resolve({ status, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => fail(o.signal.aborted ? o.stopped() : networkError(url, err)));
        res.on('aborted', () => fail(o.signal.aborted ? o.stopped() : networkError(url, new Error('connection closed early'))));
      },
    );
    req.on('error', (err) => fail(o.signal.aborted ? o.stopped() : err instanceof OutboundError ? err : networkError(url, err)));
    if (o.signal.aborted) return fail(o.stopped());
    o.signal.addEventListener('abort', onAbort, { once: true });
    req.end(o.body);
  });
}

function networkError(url: URL, err: Error): OutboundError {
  const code = (err as NodeJS.ErrnoException).code;
  return new OutboundError('network', `cannot reach ${url.host}: ${code ?? err.message}`, { cause: err });
}
