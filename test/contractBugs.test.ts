import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitForStatus } from './helpers/poll.js';
import { startReceiver } from './helpers/receiver.js';

// Regression tests of the bugs issue 18 found next to the OpenAPI work (one server for all of them).
let srv: TestServer;
let key: string;
let rx: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  // A failed delivery's second attempt is an hour away: only a replay that sends now gets through in time.
  srv = await startTestServer({ ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,3600', ATELIER_ALLOW_PRIVATE_URLS: '1' });
  key = (await srv.user({ microcredits: 1_000_000_000n })).key;
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await srv.close();
});
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => srv.request(method, path, { key, body, headers });

/** Request → espeak_tts → Response, through the API. */
async function speechWorkflow(): Promise<{ id: string; requestNodeId: string; tts: string }> {
  const wf = await req('POST', '/v1/workflows/quick-create', { name: 'Speech', requestFields: [{ name: 'text', type: 'text' }] });
  assert.equal(wf.status, 201, wf.text);
  const tts = await req('POST', `/v1/workflows/${wf.body.id}/nodes`, { nodeType: 'espeak_tts', column: 1 });
  assert.equal(tts.status, 201, tts.text);
  assert.equal(tts.body.subModelId, null, 'a single-mode node has no subModelId');
  for (const [s, sh, t, th] of [[wf.body.requestNodeId, 'text', tts.body.nodeId, 'in:text'], [tts.body.nodeId, 'out:result', wf.body.responseNodeId, 'result']]) {
    const edge = await req('POST', `/v1/workflows/${wf.body.id}/edges`, { sourceNodeId: s, sourceHandle: sh, targetNodeId: t, targetHandle: th });
    assert.equal(edge.status, 201, edge.text);
  }
  return { id: wf.body.id, requestNodeId: wf.body.requestNodeId, tts: tts.body.nodeId };
}

const isSignedUrl = (u: unknown) => typeof u === 'string' && /^http:\/\/.+\/v1\/files\/file_[^?]+\?exp=\d+&sig=/.test(u);

describe('issue 18 bugs', () => {
  test('a workflow run.completed webhook and SSE event carry signed URLs, as GET /v1/runs/{id} does', async () => {
    const w = await speechWorkflow();
    const r = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.requestNodeId]: { text: 'signed urls' } }, webhook: { url: rx.url('/wf-urls'), events: ['run.completed'] } });
    assert.equal(r.status, 202, r.text);
    await rx.waitFor(() => rx.forPath('/wf-urls').length >= 1, 120_000);
    const hooked = rx.forPath('/wf-urls')[0]!.json.data.outputs[w.tts]['out:result'];
    assert.ok(Array.isArray(hooked) && hooked.length === 1 && isSignedUrl(hooked[0]), JSON.stringify(hooked));
    assert.equal((await fetch(hooked[0])).status, 200, 'the webhook URL downloads without a key');
    const sse = await (await fetch(`${srv.url}/v1/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
    const completed = /event: run\.completed\ndata: (.*)\n/.exec(sse);
    assert.ok(completed, sse);
    const streamed = JSON.parse(completed[1]!).data.outputs[w.tts]['out:result'];
    assert.ok(isSignedUrl(streamed[0]), JSON.stringify(streamed));
    const polled = (await req('GET', `/v1/runs/${r.body.runId}`)).body.outputs[w.tts]['out:result'];
    const path = (u: string) => new URL(u).pathname;
    assert.deepEqual([path(hooked[0]), path(streamed[0])], [path(polled[0]), path(polled[0])]);
  });

  test('replaying a delivery that is still retrying sends it now', async () => {
    rx.setResponder((r, n) => (r.path === '/retrying' && n === 1 ? 500 : 200));
    const r = await req('POST', '/v1/nodes/sfxr_sound_effects/run', { subModelId: 'sfxr-jump', input: {}, webhook: { url: rx.url('/retrying'), events: ['run.completed'] } });
    assert.equal(r.status, 202, r.text);
    await rx.waitFor(() => rx.forPath('/retrying').length >= 1, 60_000);
    const eventId = rx.forPath('/retrying')[0]!.headers['webhook-id']!;
    const pending = await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`);
    await waitFor(async () => (await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`)).body.items[0]?.attempts === 1, 'first attempt recorded');
    assert.equal(pending.status, 200);
    const rep = await req('POST', `/v1/webhooks/deliveries/${eventId}/replay`);
    assert.equal(rep.status, 202, rep.text);
    // Without the fix the replay waits behind the original's next attempt, an hour away.
    await rx.waitFor(() => rx.forPath('/retrying').length >= 2, 30_000);
    assert.equal(rx.forPath('/retrying')[1]!.headers['webhook-id'], eventId);
    await waitFor(async () => (await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`)).body.items.every((d: any) => d.status === 'delivered'), 'every delivery delivered');
  });

  test('an idempotent replay answers the first answer (QUEUED), for model and workflow runs', async () => {
    const body = { subModelId: 'sfxr-jump', input: {} };
    const first = await req('POST', '/v1/nodes/sfxr_sound_effects/run', body, { 'idempotency-key': 'i18-node' });
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.status, 'QUEUED');
    await waitForStatus(srv, key, `/v1/nodes/runs/${first.body.runId}`, ['COMPLETED'], 60_000);
    const again = await req('POST', '/v1/nodes/sfxr_sound_effects/run', body, { 'idempotency-key': 'i18-node' });
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);

    const wfBody = { workflowId: 'sound-scene', values: { request: { seed: 3 } } };
    const wf1 = await req('POST', '/v1/runs', wfBody, { 'idempotency-key': 'i18-wf' });
    assert.equal(wf1.status, 202, wf1.text);
    await waitForStatus(srv, key, `/v1/runs/${wf1.body.runId}`, ['COMPLETED'], 120_000);
    const wf2 = await req('POST', '/v1/runs', wfBody, { 'idempotency-key': 'i18-wf' });
    assert.equal(wf2.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(wf2.body, wf1.body);
  });

  test('subModelId of a single-mode model is null everywhere: run record, schema, pricing, workflow node runs', async () => {
    const created = await req('POST', '/v1/nodes/espeak_tts/run', { input: { text: 'one rule' } });
    assert.equal(created.status, 202, created.text);
    const run = await waitForStatus(srv, key, `/v1/nodes/runs/${created.body.runId}`, ['COMPLETED'], 60_000);
    assert.equal(run.subModelId, null);
    assert.equal((await req('GET', '/v1/models/espeak_tts/schema')).body.subModelId, null);
    assert.equal((await req('GET', '/v1/models/espeak_tts/pricing')).body.subModelId, null);
    const w = await speechWorkflow();
    const wr = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.requestNodeId]: { text: 'one rule' } } });
    const done = await waitForStatus(srv, key, `/v1/runs/${wr.body.runId}`, ['COMPLETED'], 120_000);
    assert.deepEqual(done.nodeRuns.map((n: any) => n.subModelId), [null]);
    // A multi-mode model keeps its sub-model everywhere.
    const jump = await req('POST', '/v1/nodes/sfxr_sound_effects/run', { subModelId: 'sfxr-jump', input: {} });
    assert.equal((await waitForStatus(srv, key, `/v1/nodes/runs/${jump.body.runId}`, ['COMPLETED'], 60_000)).subModelId, 'sfxr-jump');
  });

  test('MCP list_node_types is byte-identical to GET /v1/models', async () => {
    const client = new Client({ name: 'i18', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const res = await client.callTool({ name: 'list_node_types', arguments: {} });
      const text = (res.content as Array<{ type: string; text: string }>)[0]!.text;
      const rest = await req('GET', '/v1/models');
      assert.equal(rest.status, 200);
      assert.equal(text, rest.text);
    } finally {
      await client.close();
    }
  });
});

async function waitFor(pred: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
