import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;
let client: Client;

async function connect(k: string): Promise<Client> {
  const c = new Client({ name: 'atelier-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k}` } } }));
  return c;
}

/** Calls a tool and returns its parsed JSON text content plus the error flag. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; text: string; json: any }> {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content as Array<{ type: string; text: string }>)[0]!.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: res.isError === true, text, json };
}

async function rest(method: string, path: string, body?: unknown) {
  const r = await srv.request(method, path, { key, body });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.body;
}

before(async () => {
  srv = await startTestServer();
  key = (await srv.user()).key;
  client = await connect(key);
});
after(async () => {
  await client?.close();
  await srv.close();
});

describe('MCP at /mcp', () => {
  test('lists every tool with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    // Atelier's own ten stay beside the hosted set (test/compat/mcp.test.ts checks that one).
    for (const own of ['estimate_credits', 'get_balance', 'get_model_pricing', 'get_model_schema', 'get_run', 'list_node_types',
      'list_system_workflows', 'run_model', 'run_workflow', 'search_models']) assert.ok(names.includes(own), own);
    for (const t of tools) {
      assert.ok(t.description && t.description.length > 20, t.name);
      assert.equal(t.inputSchema.type, 'object', t.name);
    }
    const run = tools.find((t) => t.name === 'run_model')!;
    assert.deepEqual(Object.keys(run.inputSchema.properties ?? {}).sort(), ['input', 'nodeType', 'subModelId']);
    assert.deepEqual(run.inputSchema.required, ['nodeType']);
  });

  test('search_models returns exactly the REST search JSON', async () => {
    for (const query of ['image', 'lipsync', 'text-to-speech', 'no-such-thing-xyz', undefined]) {
      const restBody = await srv.request('GET', `/v1/models/search${query === undefined ? '' : `?query=${encodeURIComponent(query)}`}`, { key });
      assert.equal(restBody.status, 200);
      const r = await call('search_models', query === undefined ? {} : { query });
      assert.equal(r.isError, false);
      // Byte-equal, not just deep-equal: the tool text is the JSON the endpoint sends.
      assert.equal(r.text, restBody.text, `query ${query}`);
    }
    const none = await call('search_models', { query: 'no-such-thing-xyz' });
    assert.equal(typeof none.json.noMatch, 'string');
  });

  test('schema, pricing, node types, estimate, balance and system workflows match REST', async () => {
    for (const id of ['espeak_tts', 'sfxr-jump']) {
      assert.deepEqual((await call('get_model_schema', { modelId: id })).json, await rest('GET', `/v1/models/${id}/schema`));
      assert.deepEqual((await call('get_model_pricing', { modelId: id })).json, await rest('GET', `/v1/models/${id}/pricing`));
    }
    assert.deepEqual((await call('list_node_types')).json, await rest('GET', '/v1/models'));
    const nodes = [{ type: 'espeak_tts', data: { text: 'Hello from Atelier.' } }, { type: 'sfxr_sound_effects', subModelId: 'sfxr-jump', data: {} }];
    const est = await call('estimate_credits', { nodes });
    assert.deepEqual(est.json, await rest('POST', '/v1/workflows/estimate-credits', { nodes }));
    assert.ok(est.json.totalMicrocredits > 0);
    assert.deepEqual((await call('get_balance')).json, await rest('GET', '/v1/credits/balance'));
    assert.deepEqual((await call('list_system_workflows')).json, await rest('GET', '/v1/system-workflows'));
  });

  test('run_model then get_run until COMPLETED, matching the REST run view', async () => {
    const created = await call('run_model', { nodeType: 'sfxr_sound_effects', subModelId: 'sfxr-jump', input: {} });
    assert.equal(created.isError, false, created.text);
    assert.match(created.json.runId, /^run_/);
    assert.ok(['QUEUED', 'RUNNING'].includes(created.json.status));
    assert.ok(created.json.estimatedCredits > 0);
    const deadline = Date.now() + 60_000;
    let run: any;
    while (Date.now() < deadline) {
      run = (await call('get_run', { runId: created.json.runId })).json;
      if (['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run).slice(0, 500));
    assert.equal(run.creditUsed, created.json.estimatedCredits);
    const restRun = await rest('GET', `/v1/nodes/runs/${created.json.runId}`);
    // Signed file URLs carry their own expiry, so compare everything but the URLs' query strings.
    const unsign = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/\?exp=[^"]*/g, ''));
    assert.deepEqual(unsign(run), unsign(restRun));
  });

  test('run_workflow runs a system workflow by slug and get_run reads the workflow run to COMPLETED', async () => {
    const created = await call('run_workflow', { workflowId: 'sound-scene', values: { request: { seed: 3 } } });
    assert.equal(created.isError, false, created.text);
    assert.match(created.json.runId, /^run_/);
    assert.ok(created.json.estimatedCredits > 0);
    const deadline = Date.now() + 120_000;
    let run: any;
    while (Date.now() < deadline) {
      run = (await call('get_run', { runId: created.json.runId })).json;
      if (['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run).slice(0, 500));
    assert.ok(Array.isArray(run.nodeRuns) && run.nodeRuns.length > 0);
    const unsign = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/\?exp=[^"]*/g, ''));
    assert.deepEqual(unsign(run), unsign(await rest('GET', `/v1/runs/${created.json.runId}`)));
  });

  test('service errors become tool errors naming the code and field', async () => {
    const bad = await call('run_model', { nodeType: 'sfxr_sound_effects', subModelId: 'sfxr-laser-shoot', input: { seed: 'x' } });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /VALIDATION_ERROR/);
    assert.match(bad.text, /seed/);
    const unknown = await call('get_model_schema', { modelId: 'no_such_model' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /NOT_FOUND/);
    const missing = await call('get_run', { runId: 'run_doesnotexist' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /NOT_FOUND/);
    // A zod failure (wrong argument type) is also a tool error, not a transport failure.
    const typed = await call('get_model_schema', { modelId: 42 });
    assert.equal(typed.isError, true);
    // The connection still works afterwards.
    assert.equal((await call('get_balance')).isError, false);
  });

  test('no key or a bad key answers 401 with the spec error body', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { accept: 'application/json, text/event-stream' };
    expectErrorBody(await srv.request('POST', '/mcp', { body: init, headers }), 401, 'UNAUTHORIZED');
    expectErrorBody(await srv.request('POST', '/mcp', { body: init, headers, key: 'gx_not_a_real_key' }), 401, 'UNAUTHORIZED');
    await assert.rejects(connect('gx_nope'));
  });

  test('GET and DELETE answer 405 (stateless: no SSE stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await srv.request(method, '/mcp', { key, headers: { accept: 'application/json, text/event-stream' } });
      expectErrorBody(res, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(res.headers.get('allow'), 'POST');
    }
  });

  test('the key\'s rate limit applies to /mcp', async () => {
    const limited = await srv.user({ perMinute: 1 });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { accept: 'application/json, text/event-stream' };
    const first = await srv.request('POST', '/mcp', { body: init, headers, key: limited.key });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('x-ratelimit-limit'), '1');
    assert.match(first.headers.get('x-request-id') ?? '', /^req_/);
    expectErrorBody(await srv.request('POST', '/mcp', { body: init, headers, key: limited.key }), 429, 'RATE_LIMITED');
  });

  // Byte for byte, not only equal as JSON (issue 18).
  test('list_node_types is byte-identical to GET /v1/models', async () => {
    const { text } = await call('list_node_types');
    const r = await srv.request('GET', '/v1/models', { key });
    assert.equal(r.status, 200);
    assert.equal(text, r.text);
  });
});
