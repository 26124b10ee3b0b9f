import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { startReceiver } from '../helpers/receiver.js';

// Workflow runs answer as model runs do: signed file URLs in run.completed webhooks and SSE events, and the
// subModelId rule (bugs issue 18 found next to the OpenAPI work). Other bugs of that issue: test/api/idempotency.test.ts,
// test/api/webhookReplay.test.ts and the MCP list_node_types test in test/api/mcp.test.ts.
let srv: TestServer;
let key: string;
let rx: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
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

describe('workflow runs', () => {
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

});
