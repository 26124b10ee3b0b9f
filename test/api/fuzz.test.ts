import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { fuzzSeeds, runFuzz } from '../helpers/fuzzRun.js';
import { getFrom, slowloris, type FuzzSeeds } from '../helpers/fuzzRequests.js';
import { runWebFuzz } from '../helpers/fuzzWeb.js';

// Issue #10 item 3: hostile requests generated from the OpenAPI document at every endpoint. A few hundred
// cases here (ATELIER_FUZZ_CASES changes it; the bench's --fuzz runs 10,000), with a fixed seed unless
// ATELIER_FUZZ_SEED says otherwise, so a failure reproduces.
const CASES = Number(process.env.ATELIER_FUZZ_CASES ?? 400);
const SEED = process.env.ATELIER_FUZZ_SEED ? Number(process.env.ATELIER_FUZZ_SEED) : 20261123;

let srv: TestServer;
let seeds: FuzzSeeds;
before(async () => {
  // API role: runs the fuzzer manages to create stay queued, so no model ever runs on fuzzed input here.
  // A small body limit makes "oversized" cheap to generate.
  // A short headers time-out makes the slowloris case quick.
  srv = await startTestServer({ ATELIER_BODY_LIMIT: String(256 * 1024), ATELIER_ALLOW_PRIVATE_URLS: '0', ATELIER_HTTP_HEADERS_TIMEOUT_MS: '3000' }, { role: 'api' });
  seeds = await fuzzSeeds(srv);
});
after(async () => {
  await srv.close();
});

test(`${CASES} hostile requests: never a 5xx, always the error body, and the server stays up`, async (t) => {
  const outcome = await runFuzz(srv, seeds, { cases: CASES, socketEvery: 10, seed: SEED });
  t.diagnostic(`statuses ${JSON.stringify(outcome.statuses)}, ${outcome.viaSocket} over a socket, ${outcome.ms} ms`);
  assert.equal(outcome.failure, undefined, outcome.failure);
  assert.equal(outcome.cases, CASES);
  assert.ok(outcome.viaSocket > 0, 'some requests went over a real socket');
  // The generator must reach past authentication and validation, or it tests nothing.
  const ok = Object.entries(outcome.statuses).filter(([s]) => Number(s) < 300).reduce((a, [, n]) => a + n, 0);
  assert.ok(ok > 0, `no request succeeded: ${JSON.stringify(outcome.statuses)}`);
  assert.ok((outcome.statuses['400'] ?? 0) > 0 && (outcome.statuses['404'] ?? 0) > 0, JSON.stringify(outcome.statuses));
  const health = await srv.request('GET', '/healthz');
  assert.equal(health.status, 200);
  const ready = await srv.request('GET', '/v1/credits/balance', { key: seeds.key });
  assert.equal(ready.status, 200);
});

test('hostile web forms: NUL, control characters and lone surrogates in fields, off-site `next` targets — never a 5xx, never a redirect off the site', async (t) => {
  const outcome = await runWebFuzz(srv, { cases: Math.max(60, Math.round(CASES / 3)), seed: SEED });
  t.diagnostic(`statuses ${JSON.stringify(outcome.statuses)}`);
  assert.equal(outcome.failure, undefined, outcome.failure);
  assert.ok((outcome.statuses['303'] ?? 0) > 0, 'some requests were redirected, so their targets were checked');
});

test('a lone surrogate in a JSON string is a 400 naming the field, never a database error', async () => {
  for (const [url, body, at] of [
    ['/v1/nodes/word_count/run', '{"input":{"text":"a\\ud800b"}}', 'body.input.text'],
    ['/v1/workflows', '{"name":"\\udfff","nodes":[],"edges":[]}', 'body.name'],
  ] as const) {
    const b = expectErrorBody(await srv.request('POST', url, { key: seeds.key, raw: body, headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, at);
  }
});

// Cases the fuzzer found, kept as fixed examples.
test('a body nesting past the limit is 400 before anything walks it, on every JSON route', async () => {
  const deep = (n: number) => `{"input":{"text":"x","json":${'['.repeat(n)}${']'.repeat(n)}},"webhook":{"url":"http://127.0.0.1/","metadata":{"m":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}}`;
  for (const path of ['/v1/nodes/word_count/run', '/v1/nodes/json_extract/run', '/v1/nodes/moderate_image/run', '/v1/nodes/estimate-credits', '/v1/workflows', '/mcp']) {
    const b = expectErrorBody(await srv.request('POST', path, { key: seeds.key, raw: deep(20_000), headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body', path);
  }
  // Just inside the limit the body is parsed and judged by its schema as usual.
  const inside = expectErrorBody(await srv.request('POST', '/v1/nodes/word_count/run', { key: seeds.key, raw: deep(20), headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
  assert.notEqual(inside.details?.[0]?.path, 'body');
});

test('a NUL character in a URL or a JSON string is a 400, never a database error', async () => {
  for (const url of ['/v1/webhooks/deliveries/a%00b/replay', '/v1/workflows?search=a%00b', '/v1/runs?workflowId=a%00b', '/v1/webhooks/deliveries?runId=a%00b']) {
    const method = url.includes('replay') ? 'POST' : 'GET';
    expectErrorBody(await srv.request(method, url, { key: seeds.key }), 400, 'VALIDATION_ERROR');
  }
  for (const [url, body, at] of [
    ['/v1/nodes/word_count/run', { input: { text: 'a\u0000b' } }, 'body.input.text'],
    ['/v1/workflows', { name: 'a\u0000b', nodes: [], edges: [] }, 'body.name'],
  ] as const) {
    const b = expectErrorBody(await srv.request('POST', url, { key: seeds.key, body }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, at);
  }
  // An escaped backslash before "u0000" is not a NUL.
  const ok = await srv.request('POST', '/v1/nodes/word_count/run', { key: seeds.key, body: { input: { text: 'a\\u0000b' } } });
  assert.equal(ok.status, 202, ok.text);
});

test('workflow-run routes validate by the service\'s rules too (a query cannot carry Infinity; bodies are not coerced)', async () => {
  for (const url of ['/v1/runs?limit=1e309', '/v1/runs?limit=Infinity']) {
    const b = expectErrorBody(await srv.request('GET', url, { key: seeds.key }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'querystring.limit');
  }
  const b = expectErrorBody(await srv.request('POST', '/v1/runs', { key: seeds.key, body: { workflowId: 12345, values: {} } }), 400, 'VALIDATION_ERROR');
  assert.equal(b.details[0].path, 'body.workflowId', 'a number is not silently turned into a string id');
});

// Issue 26, finding 7.
test('slowloris: half-open requests are closed by the server, and another client is served meanwhile', async () => {
  const attack = slowloris(srv.url, { sockets: 60, dripMs: 500 });
  try {
    await attack.opened;
    const health = await getFrom(`${srv.url}/healthz`, '127.0.0.2');
    assert.equal(health.status, 200, health.body);
    const result = await attack.closedByServer(90_000);
    assert.equal(result.closed, 60, `${60 - result.closed} half-open sockets left open by the server`);
    assert.equal(result.timedOut, 60, 'each answered 408 by the headers time-out');
  } finally {
    attack.stop();
  }
});

// Issue 26, finding 3.
test('MCP batches: random JSON-RPC batches of run calls, lists and garbage never give a 5xx, and never create more runs than the key may', async () => {
  // A key of 15 requests a minute; each batch mixes model runs (two tool names), lists and malformed
  // entries, in sizes from 1 to 60, from a fixed seed so a failure reproduces.
  const u = await srv.user({ perMinute: 15 });
  let rnd = SEED;
  const next = (n: number) => { rnd = (rnd * 1103515245 + 12345) % 2 ** 31; return rnd % n; };
  const entry = (id: number): unknown => {
    switch (next(6)) {
      case 0: return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_model', arguments: { nodeType: 'word_count', input: { text: 'a b c' } } } };
      case 1: return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute_tool', arguments: { tool_name: 'generate', input: { modelId: 'word_count', text: 'a b' } } } };
      case 2: return { jsonrpc: '2.0', id, method: 'tools/list' };
      case 3: return { jsonrpc: '2.0', method: 'notifications/initialized' };
      case 4: return next(2) ? 42 : { jsonrpc: '2.0', id };
      default: return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute_tool', arguments: { tool_name: 'batch_execute', input: { items: [{ modelId: 'word_count', text: 'x' }, { modelId: 'word_count', text: 'y' }] } } } };
    }
  };
  const statuses: Record<number, number> = {};
  for (let b = 0; b < 12; b++) {
    const size = 1 + next(60);
    const batch = Array.from({ length: size }, (_, i) => entry(b * 100 + i));
    const r = await srv.request('POST', '/mcp', { key: u.key, headers: { accept: 'application/json, text/event-stream' }, body: batch });
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    assert.ok(r.status < 500, `batch ${b} (${size} entries): ${r.status} ${r.text.slice(0, 300)}`);
  }
  const { rows } = await srv.services.db.pool.query('SELECT count(*)::int AS n FROM runs WHERE account_id = $1', [u.accountId]);
  assert.ok(rows[0].n <= 15, `${rows[0].n} runs created with a key of 15 a minute (statuses ${JSON.stringify(statuses)})`);
  assert.equal((await srv.request('GET', '/healthz')).status, 200);
});
