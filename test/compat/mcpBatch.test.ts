import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 26, finding 3: one /mcp POST carrying a JSON-RPC batch of N tool calls was counted as one request,
// so a key limited to L requests a minute created N runs. Every call of a batch now counts against the key.

let srv: TestServer;

const HEADERS = { accept: 'application/json, text/event-stream' };
const runCall = (id: number, seed: number) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'run_model', arguments: { nodeType: 'sfxr_sound_effects', subModelId: 'sfxr-jump', input: { seed } } },
});
const generateCall = (id: number, seed: number) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'execute_tool', arguments: { tool_name: 'generate', input: { modelId: 'sfxr-jump', seed } } },
});

async function runCount(accountId: string): Promise<number> {
  return (await srv.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [accountId])).rows[0].n;
}

before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

describe('MCP batches and the key\'s rate limit', () => {
  for (const [name, make] of [['run_model', runCall], ['execute_tool generate', generateCall]] as const) {
    test(`a batch of 6 ${name} calls with a 3/minute key creates 3 runs and refuses 3`, async () => {
      const limited = await srv.user({ perMinute: 3 });
      const batch = Array.from({ length: 6 }, (_, i) => make(i + 1, i + 1));
      const res = await srv.request('POST', '/mcp', { key: limited.key, body: batch, headers: HEADERS });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.ok(Array.isArray(res.body), res.text.slice(0, 300));
      assert.equal(res.body.length, 6);
      const refused = res.body.filter((m: any) => m.result?.isError === true && /RATE_LIMITED/.test(m.result.content[0].text));
      const accepted = res.body.filter((m: any) => m.result && m.result.isError !== true);
      assert.equal(accepted.length, 3, res.text.slice(0, 600));
      assert.equal(refused.length, 3, res.text.slice(0, 600));
      assert.equal(await runCount(limited.accountId), 3);
      // The headers tell the truth about the window the batch used up.
      assert.equal(res.headers.get('x-ratelimit-limit'), '3');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      // And the next request of the key is refused outright.
      const next = await srv.request('POST', '/mcp', { key: limited.key, body: make(99, 99), headers: HEADERS });
      assert.equal(next.status, 429);
      assert.equal(await runCount(limited.accountId), 3);
    });
  }

  test('batch_execute counts every run against the key', async () => {
    const limited = await srv.user({ perMinute: 2 });
    const res = await srv.request('POST', '/mcp', {
      key: limited.key, headers: HEADERS,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_tool', arguments: { tool_name: 'batch_execute', input: { items: [1, 2, 3, 4].map((seed) => ({ modelId: 'sfxr-jump', seed })) } } } },
    });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const sc = res.body.result.structuredContent;
    assert.equal(sc.runs.length, 4, JSON.stringify(sc).slice(0, 500));
    assert.equal(sc.runs.filter((r: any) => r.runId).length, 2);
    assert.equal(sc.runs.filter((r: any) => r.error && /RATE_LIMITED/.test(r.error)).length, 2);
    assert.equal(await runCount(limited.accountId), 2);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
  });

  test('calls other than tools/call over the limit get a JSON-RPC error', async () => {
    const limited = await srv.user({ perMinute: 1 });
    const res = await srv.request('POST', '/mcp', { key: limited.key, headers: HEADERS, body: [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ] });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const byId = new Map(res.body.map((m: any) => [m.id, m]));
    assert.ok((byId.get(1) as any).result.tools.length > 0);
    assert.match((byId.get(2) as any).error.message, /RATE_LIMITED/);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
  });

  test('a batch within the limit is answered whole and counted call by call', async () => {
    const roomy = await srv.user({ perMinute: 10 });
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_balance', arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      runCall(3, 7),
    ];
    const res = await srv.request('POST', '/mcp', { key: roomy.key, body: batch, headers: HEADERS });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.body.length, 3);
    assert.ok(res.body.every((m: any) => m.result && m.result.isError !== true), res.text.slice(0, 600));
    // Three requests (the notification is not a call): 10 - 3.
    assert.equal(res.headers.get('x-ratelimit-remaining'), '7');
  });
});
