import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';

/**
 * Hostile HTTP requests generated from the service's own OpenAPI document: every operation, with path
 * parameters, query strings, headers and bodies drawn from shapes that are wrong in every way we could
 * think of (types, sizes, encodings, nesting, prototype keys). Shared by test/api/fuzz.test.ts (a few hundred
 * cases) and the bench's --fuzz scenario (10,000).
 */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Which operation it came from, for the failure message. */
  op: string;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. /v1/nodes/runs/{runId}. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  bodySchema?: any;
}

/** Real identifiers the fuzzer mixes in, so requests also reach handlers past the "not found" checks. */
export interface FuzzSeeds {
  key: string;
  /** A key of another account (its ids must stay invisible: 404, never 5xx). */
  otherKey: string;
  ids: string[];
  nodeTypes: string[];
  fieldNames: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, plus the routes it hides (MCP, health, OpenAPI itself). */
export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  const resolve = (s: any): any => (s && s.$ref ? resolve(refTarget(doc, s.$ref)) : s);
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []).map(resolve);
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p: any) => p.in === 'path').map((p: any) => p.name),
        queryParams: params.filter((p: any) => p.in === 'query').map((p: any) => p.name),
        headerParams: params.filter((p: any) => p.in === 'header').map((p: any) => p.name),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  ops.push({ method: 'POST', path: '/mcp', pathParams: [], queryParams: [], headerParams: [], bodySchema: { type: 'object', properties: { jsonrpc: { type: 'string' }, id: { type: 'integer' }, method: { type: 'string' }, params: { type: 'object' } } } });
  ops.push({ method: 'GET', path: '/healthz', pathParams: [], queryParams: [], headerParams: [] });
  ops.push({ method: 'GET', path: '/v1/openapi.json', pathParams: [], queryParams: [], headerParams: [] });
  return ops;
}

function refTarget(doc: any, ref: string): any {
  if (!ref.startsWith('#/')) return {};
  return ref.slice(2).split('/').reduce((o, k) => (o ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc) ?? {};
}

/** Strings that have broken parsers, routers and databases before. */
const NASTY = [
  '', ' ', '..', '../..', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f', '%00', '\u0000', 'a\u0000b', '%', '%zz', '%E0%A4%A', '\uD800', '\uFFFF',
  "' OR 1=1 --", "'; DROP TABLE runs; --", '"', '\\', '{}', '[]', 'null', 'true', '-1', '0', '1e309', '-0', 'NaN', 'Infinity',
  '9223372036854775808', '18446744073709551616', '0x10', '１２３', '😀', 'Ω≈ç√', 'ß', '\u202e', '<script>', '${jndi:x}', '{{7*7}}',
  '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'run_', 'run_' + 'A'.repeat(60), 'wf_x', 'evt_x', 'file_x',
  'cursor', 'eyJ4IjoxfQ', 'bm90IGpzb24', '*', '?', '#', '&', '=', ';', '\r\n', '\t',
  // Lone surrogates (no UTF-8 form; PostgreSQL's jsonb refuses their escapes) and NUL/controls inside text.
  '\uDC00', 'a\uD83Db', '\uDBFF\uDBFF', '\uDFFFx', 'x\uD800\u0000', 'a\u0001b', '\u001b[31m', '\u007f',
];

/** A string with one unpaired UTF-16 surrogate somewhere inside. */
export function loneSurrogateString(): fc.Arbitrary<string> {
  return fc.tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 }))
    .map(([a, c, b]) => `${a}${String.fromCharCode(c)}${b}`);
}

/** A string with NUL or another control character somewhere inside. */
export function controlCharString(): fc.Arbitrary<string> {
  return fc.tuple(fc.string({ maxLength: 8 }), fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f })), fc.string({ maxLength: 8 }))
    .map(([a, c, b]) => `${a}${String.fromCharCode(c)}${b}`);
}

export function nastyString(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String) },
    { weight: 1, arbitrary: loneSurrogateString() },
    { weight: 1, arbitrary: controlCharString() },
  );
}

/** Any JSON value, with a taste for wrong types and extremes. */
function nastyValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: nastyString() },
    { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, [], {}) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.array(nastyString(), { maxLength: 5 }) },
  );
}

/** A value for a JSON-schema shape: sometimes right, often wrong. */
function valueFor(doc: any, schema: any, seeds: FuzzSeeds, depth: number): fc.Arbitrary<unknown> {
  if (schema?.$ref) return valueFor(doc, refTarget(doc, schema.$ref), seeds, depth);
  const alternatives = schema?.anyOf ?? schema?.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s: any) => valueFor(doc, s, seeds, depth)), nastyValue());
  if (depth > 3) return nastyValue();
  switch (schema?.type) {
    case 'object': return objectFor(doc, schema, seeds, depth);
    case 'array': return fc.oneof(fc.array(valueFor(doc, schema.items ?? {}, seeds, depth + 1), { maxLength: 4 }), nastyValue());
    case 'string': return fc.oneof(nastyString(), fc.constantFrom(...seeds.ids, ...seeds.nodeTypes));
    case 'integer':
    case 'number': return fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-1, 0, 1, 2 ** 31, 2 ** 53, 1e300), nastyValue());
    case 'boolean': return fc.oneof(fc.boolean(), nastyValue());
    default: return nastyValue();
  }
}

function objectFor(doc: any, schema: any, seeds: FuzzSeeds, depth: number): fc.Arbitrary<unknown> {
  const props: Record<string, any> = schema.properties ?? {};
  const names = Object.keys(props);
  const known = fc.record(Object.fromEntries(names.map((n) => [n, valueFor(doc, props[n], seeds, depth + 1)])), { requiredKeys: [] });
  // Open objects (model inputs, metadata) get the catalogue's field names with hostile values.
  const extra = fc.dictionary(fc.oneof(fc.constantFrom(...seeds.fieldNames, 'extra', 'toString'), nastyString()), nastyValue(), { maxKeys: 4 });
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(known, extra).map(([a, b]) => ({ ...(b as object), ...(a as object) })) },
    { weight: 1, arbitrary: known },
    { weight: 1, arbitrary: nastyValue() },
  );
}

/** Bodies that are not JSON of the right shape at all. */
function hostileBodyText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('{', '{"a":', '[1,2', 'nul', '\u0000', '{"a":1}}', "{'a':1}", '{"a":NaN}', '{"a":1e99999}', '\uFEFF{}', '{"a":"\\ud800"}',
      '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"input":{"__proto__":{"x":1}}}', '{"a":1,"a":2}'),
    fc.integer({ min: 1, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.integer({ min: 1, max: 100_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
    fc.integer({ min: 1, max: 50_000 }).map((n) => `{"input":{"text":${'['.repeat(n)}"x"${']'.repeat(n)}}}`),
    fc.string({ maxLength: 200 }),
  );
}

/** encodeURIComponent that cannot throw: a lone surrogate (no UTF-8 form) becomes U+FFFD first. */
function enc(s: string): string {
  return encodeURIComponent((s as any).toWellFormed());
}

/** `arb` in about one case of `n`, else undefined. */
function rarely<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

function encode(s: string, raw: boolean): string {
  if (!raw) return enc(s);
  // Raw, but never a byte that would end the request line or make it unparseable as a URL by the client.
  return s.replace(/[\s\u0000-\u001f\u007f#?]/g, (c) => enc(c));
}

/** One hostile request for one of the operations. */
export function fuzzRequest(doc: any, ops: Operation[], seeds: FuzzSeeds, opts: { oversizeBytes: number; socket: boolean }): fc.Arbitrary<FuzzRequest> {
  const pathValue = fc.oneof(
    { weight: 3, arbitrary: nastyString() },
    { weight: 2, arbitrary: fc.constantFrom(...seeds.ids, ...seeds.nodeTypes) },
  );
  const queryValue = fc.oneof(nastyString(), fc.constantFrom('1', '100', '101', '0', '-5', '1.5', 'true', 'QUEUED', 'delivered', '99999999999999999999'));
  const authorization = fc.oneof(
    { weight: 24, arbitrary: fc.constant(`Bearer ${seeds.key}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${seeds.otherKey}`) },
    { weight: 3, arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Bearer ', `bearer ${seeds.key}`, `Bearer  ${seeds.key}  `, `Bearer ${seeds.key} extra`,
      `Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearer gx_' + 'a'.repeat(40), 'Bearer gx_', `Bearer ${seeds.key.slice(0, -1)}`, `Token ${seeds.key}`, `Bearer ${'x'.repeat(5000)}`) },
    { weight: 1, arbitrary: nastyString().map((s) => `Bearer ${s}`) },
  );
  const contentType = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8') }, fc.constantFrom('application/JSON', 'text/plain', 'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/octet-stream', 'application/vnd.api+json', '*/*', 'json', 'application/json;'));
  const headerOdd = fc.oneof(nastyString(), fc.constantFrom('1', '0', '60', '61', '90s', '5m', '1h30m', '8d', '-1', 'wait=0', 'wait=61', 'wait=-1', 'wait=abc', 'wait=1.5', 'respond-async', 'wait=99999999999999999999', 'handling=lenient, wait=0'));
  const header = (name: string) => rarely(name === 'prefer' ? headerOdd.filter((v) => !/wait=0*([1-9]|[1-5]\d|60)(?!\d)/i.test(v)) : headerOdd, 3);

  return fc.constantFrom(...ops).chain((op) => {
    const pathArb = fc.tuple(...op.pathParams.map(() => fc.tuple(pathValue, fc.boolean())));
    const queryNames = fc.array(fc.oneof(fc.constantFrom(...(op.queryParams.length ? op.queryParams : ['q'])), nastyString()), { maxLength: 4 });
    const query = queryNames.chain((names) => fc.tuple(...names.map((n) => fc.tuple(fc.constant(n), fc.array(queryValue, { minLength: 1, maxLength: 3 })))));
    const bodyArb = fc.oneof(
      { weight: op.bodySchema ? 6 : 1, arbitrary: valueFor(doc, op.bodySchema ?? { type: 'object' }, seeds, 0).map((v) => safeStringify(v)) },
      { weight: 2, arbitrary: hostileBodyText() },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(`{"text":"${'y'.repeat(opts.oversizeBytes)}"}`) },
    );
    return fc.record({
      params: op.pathParams.length ? pathArb : fc.constant([] as Array<[string, boolean]>),
      query,
      authorization,
      contentType,
      idempotencyKey: rarely(fc.oneof(nastyString(), fc.constantFrom('k1', 'k1', 'x'.repeat(255), 'x'.repeat(256))), 3),
      cancelAfter: header('cancel-after'),
      prefer: header('prefer'),
      lastEventId: rarely(fc.oneof(nastyString(), fc.constantFrom('0', '1', '99999999999999999999', '-1')), 4),
      accept: fc.constantFrom(undefined, 'application/json', 'text/html', '*/*', 'application/xml', ''),
      lengthLie: opts.socket ? fc.constant(undefined) : rarely(fc.constantFrom('0', '1', '999999999999', '-1', 'abc'), 12),
      body: op.method === 'GET' || op.method === 'DELETE' ? rarely(bodyArb, 4) : bodyArb,
      method: rarely(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), 10),
    }).map((r): FuzzRequest => {
      let url = op.path;
      op.pathParams.forEach((name, i) => {
        const [value, raw] = r.params[i]!;
        url = url.replace(`{${name}}`, encode(value, raw && !opts.socket) || 'x');
      });
      const qs = r.query.flatMap(([name, values]) => values.map((v) => `${enc(name)}=${enc(v)}`)).join('&');
      if (qs) url += `?${qs}`;
      const headers: Record<string, string> = {};
      const set = (name: string, v: string | undefined) => {
        // Only values a real client could send (no CR/LF/NUL, Latin-1 only).
        if (v !== undefined && /^[\t\x20-\x7e\x80-\xff]*$/.test(v)) headers[name] = v;
      };
      set('authorization', r.authorization);
      set('content-type', r.body === undefined && r.contentType === 'application/json' ? undefined : r.contentType);
      set('idempotency-key', r.idempotencyKey);
      set('cancel-after', r.cancelAfter);
      set('prefer', r.prefer);
      set('accept', r.accept);
      set('last-event-id', r.lastEventId);
      set('content-length', r.lengthLie);
      return { method: r.method ?? op.method, url, headers, payload: r.body, op: `${op.method} ${op.path}` };
    });
  });
}

function safeStringify(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null';
}

/** What must hold for every answer: never a 5xx (bar the spec's 503s), always the error body. Returns the problems. */
export function answerProblems(req: FuzzRequest, status: number, headers: Record<string, string | string[] | undefined>, text: string): string[] {
  const problems: string[] = [];
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const allowed503 = status === 503 && body?.code === 'MODEL_UNAVAILABLE' && req.method === 'POST' && /^\/v1\/(nodes\/[^/]+\/run|runs(\/batch)?)(\?|$)/.test(req.url);
  if (status >= 500 && !allowed503) problems.push(`status ${status}`);
  // MCP speaks JSON-RPC: past authentication, its transport answers protocol errors the way MCP clients parse
  // them (a JSON-RPC error object), which is the one non-2xx shape besides ours.
  const jsonRpcError = req.url.split('?')[0] === '/mcp' && body?.jsonrpc === '2.0' && typeof body?.error?.message === 'string' && typeof body?.error?.code === 'number';
  // A path that resolves outside the API (`/v1/workflows/../..` is `/` once a client or the injector resolves
  // its dots) is the web app's: a browser asking for HTML there gets its HTML error page, as it should.
  const resolved = new URL(req.url, 'http://fuzz.invalid').pathname;
  const webPage = !/^\/(v1|api|mcp)(\/|$)/.test(resolved) && /text\/html/.test(String(req.headers.accept ?? '')) && String(headers['content-type'] ?? '').startsWith('text/html');
  // A HEAD answer has no body by definition; its status still counts.
  if ((status >= 400 || status < 200) && !jsonRpcError && !webPage && req.method !== 'HEAD') {
    if (!String(headers['content-type'] ?? '').startsWith('application/json')) problems.push(`content-type ${headers['content-type']}`);
    if (!body || typeof body !== 'object') problems.push('error answer is not a JSON object');
    else {
      if (typeof body.error !== 'string' || !body.error) problems.push('no error');
      if (body.message !== body.error) problems.push('message differs from error');
      if (typeof body.code !== 'string' || !/^[A-Z_]+$/.test(body.code)) problems.push(`code ${body.code}`);
      if (typeof body.traceId !== 'string' || !/^req_/.test(body.traceId)) problems.push(`traceId ${body.traceId}`);
      else if (headers['x-request-id'] !== body.traceId) problems.push('X-Request-Id differs from traceId');
    }
  }
  return problems;
}

/**
 * Slowloris, bounded: `sockets` connections that send a request's first header lines and then one more
 * header line every `dripMs`, never finishing. Shared by test/system/slowloris.test.ts and test/api/fuzz.test.ts.
 * `closedByServer` waits until the server has closed every one (or the time is up) and says how: closed
 * before any answer (a connection cap), or answered 408 (a time-out). `stop` ends whatever is left.
 */
export function slowloris(baseUrl: string, opts: { sockets: number; dripMs: number; localAddress?: string }) {
  const url = new URL(baseUrl);
  const all: Array<{ socket: net.Socket; got: string; closed: boolean; timer?: NodeJS.Timeout }> = [];
  let stopped = false;
  const opened: Array<Promise<void>> = [];
  for (let i = 0; i < opts.sockets; i++) {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    const s: (typeof all)[number] = { socket, got: '', closed: false };
    all.push(s);
    opened.push(new Promise<void>((resolve) => {
      socket.once('connect', () => {
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: slowloris\r\n`);
        s.timer = setInterval(() => socket.write(`X-Drip-${Math.floor(Math.random() * 1e6)}: x\r\n`), opts.dripMs);
        resolve();
      });
      socket.once('close', () => resolve());
    }));
    socket.on('data', (d) => (s.got += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      s.closed = true;
      clearInterval(s.timer);
    });
  }
  const tally = () => ({
    closed: all.filter((s) => s.closed).length,
    refusedAtOnce: all.filter((s) => s.closed && s.got === '').length,
    timedOut: all.filter((s) => s.got.startsWith('HTTP/1.1 408')).length,
  });
  return {
    opened: Promise.all(opened).then(() => undefined),
    async closedByServer(timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (!stopped && all.some((s) => !s.closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return tally();
    },
    stop() {
      stopped = true;
      for (const s of all) {
        clearInterval(s.timer);
        s.socket.destroy();
      }
    },
  };
}

/** A GET from a chosen local address (another loopback address is another client to a per-address cap). */
export function getFrom(url: string, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}
