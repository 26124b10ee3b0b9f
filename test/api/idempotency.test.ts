import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';

// Idempotency-Key on run creation: a replay answers what the first request answered (issue 18: it answered
// the run's later state). More idempotency rules: test/api/runs.test.ts.
let srv: TestServer;
let key: string;
before(async () => {
  srv = await startTestServer();
  key = (await srv.user({ microcredits: 1_000_000_000n })).key;
});
after(async () => {
  await srv.close();
});
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => srv.request(method, path, { key, body, headers });

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

