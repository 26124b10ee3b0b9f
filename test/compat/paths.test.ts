import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { routedUrl } from '../../src/http/pathForms.js';

// A client of the hosted service addresses it as `{origin}/api/v1/...` and `{origin}/api/mcp`; others
// use the bare `{origin}/v1/...` and `{origin}/mcp` (hosted-compat.md, "Addresses"). Both must behave
// identically: every call below goes through both forms.
const FORMS = ['', '/api'] as const;

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

test('routedUrl: /api/v1/… and /api/mcp route as /v1/… and /mcp; nothing else is touched', () => {
  assert.equal(routedUrl('/api/v1/runs'), '/v1/runs');
  assert.equal(routedUrl('/api/v1'), '/v1');
  assert.equal(routedUrl('/api/v1?x=1'), '/v1?x=1');
  assert.equal(routedUrl('/api/v1/nodes/runs/run_1?inDetails=true'), '/v1/nodes/runs/run_1?inDetails=true');
  assert.equal(routedUrl('/api/mcp'), '/mcp');
  assert.equal(routedUrl('/api/mcp?x'), '/mcp?x');
  assert.equal(routedUrl('/api/v10/runs'), '/api/v10/runs');
  assert.equal(routedUrl('/api/mcpx'), '/api/mcpx');
  assert.equal(routedUrl('/apiv1/runs'), '/apiv1/runs');
  assert.equal(routedUrl('/v1/runs'), '/v1/runs');
  assert.equal(routedUrl('/'), '/');
});

describe('both path forms answer the same', () => {
  test('GET /api/v1/credits/balance (was 404 "No route") and /v1/credits/balance: same key, same answer, same auth errors', async () => {
    const u = await srv.user({ microcredits: 1_234_567n });
    const answers = [];
    for (const base of FORMS) {
      const res = await srv.request('GET', `${base}/v1/credits/balance`, { key: u.key });
      assert.equal(res.status, 200, `${base}: ${res.text}`);
      assert.ok(res.headers.get('x-ratelimit-limit'), `${base}: rate-limit headers`);
      answers.push(res.body);
      const anon = await srv.request('GET', `${base}/v1/credits/balance`);
      expectErrorBody(anon, 401, 'UNAUTHORIZED');
      assert.equal(anon.headers.get('www-authenticate'), 'Bearer');
      expectErrorBody(await srv.request('GET', `${base}/v1/credits/balance`, { key: 'gx_not_a_key' }), 401, 'UNAUTHORIZED');
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(answers[0].availableBalance, 1_234_567);
  });

  test('an unknown route is the same 404 in both forms (behind the key, as under /v1)', async () => {
    const u = await srv.user();
    for (const base of FORMS) {
      expectErrorBody(await srv.request('GET', `${base}/v1/no-such-thing`), 401, 'UNAUTHORIZED');
      expectErrorBody(await srv.request('GET', `${base}/v1/no-such-thing`, { key: u.key }), 404, 'NOT_FOUND');
    }
  });

  test('one key, one rate limit across both forms: the third request of a 2/minute key is 429 with Retry-After', async () => {
    const u = await srv.user({ perMinute: 2 });
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).status, 200);
    assert.equal((await srv.request('GET', '/api/v1/credits/balance', { key: u.key })).status, 200);
    for (const base of FORMS) {
      const limited = await srv.request('GET', `${base}/v1/credits/balance`, { key: u.key });
      expectErrorBody(limited, 429, 'RATE_LIMITED');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    }
  });

  test('POST /api/v1/runs (was 404 "No route"): a workflow run created, polled with inDetails=true and its file downloaded in either form', async () => {
    const u = await srv.user();
    for (const base of FORMS) {
      const wf = await srv.request('POST', `${base}/v1/workflows`, {
        key: u.key,
        body: {
          name: `Speak ${base || 'bare'}`,
          nodes: [
            { id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } },
            { id: 'speech', type: 'espeak_tts' },
            { id: 'res', type: 'response' },
          ],
          edges: [
            { source: 'req', sourceHandle: 'text', target: 'speech', targetHandle: 'in:text' },
            { source: 'speech', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
          ],
        },
      });
      assert.equal(wf.status, 201, wf.text);
      const created = await srv.request('POST', `${base}/v1/runs`, { key: u.key, body: { workflowId: wf.body.id, values: { req: { text: 'both forms' } } } });
      assert.equal(created.status, 202, `${base}: ${created.text}`);
      const run = await waitForStatus(srv, u.key, `${base}/v1/runs/${created.body.runId}?inDetails=true`, ['COMPLETED', 'FAILED'], 120_000);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.error));
      const node = run.nodeRuns.find((n: { nodeId: string }) => n.nodeId === 'speech');
      const url: string = node.output.result[0];
      const dl = await fetch(url);
      assert.equal(dl.status, 200);
      assert.equal(Buffer.from(await dl.arrayBuffer()).subarray(0, 4).toString(), 'RIFF');
      // The same file answers under both path forms.
      const u2 = new URL(url);
      const other = u2.pathname.startsWith('/api/') ? u2.pathname.slice(4) : `/api${u2.pathname}`;
      assert.equal((await fetch(`${u2.origin}${other}${u2.search}`)).status, 200);

      // Server-Sent Events of the ended run: the stream replays to the final event.
      const sse = await fetch(`${srv.url}${base}/v1/runs/${created.body.runId}/events`, { headers: { authorization: `Bearer ${u.key}`, accept: 'text/event-stream' } });
      assert.equal(sse.status, 200);
      assert.match(sse.headers.get('content-type') ?? '', /text\/event-stream/);
      assert.match(await sse.text(), /event: run\.completed/);
    }
    expectErrorBody(await srv.request('POST', '/api/v1/runs', { key: u.key, body: { workflowId: 'wf_missing', values: {} } }), 404, 'NOT_FOUND');
  });

  test('POST /api/mcp (was 404 "No route") and /mcp: the same tools behind the same key', async () => {
    const u = await srv.user();
    const lists = [];
    for (const base of FORMS) {
      const call = (key?: string) => fetch(`${srv.url}${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      const res = await call(u.key);
      assert.equal(res.status, 200, base);
      const body = await res.json() as { result: { tools: Array<{ name: string }> } };
      lists.push(body.result.tools.map((t) => t.name).sort());
      assert.equal((await call()).status, 401, `${base}/mcp without a key`);
    }
    assert.ok(lists[0]!.length > 0);
    assert.deepEqual(lists[0], lists[1]);
  });

  test('the OpenAPI document names both server forms', async () => {
    const doc = (await srv.request('GET', '/v1/openapi.json')).body;
    assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), [srv.url, `${srv.url}/api`]);
    assert.deepEqual((await srv.request('GET', '/api/v1/openapi.json')).body.servers, doc.servers);
  });
});
