import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { openEventStream } from '../helpers/streams.js';
import { GATED_NODE_TYPE, startGatedModel, type GatedModel } from '../helpers/gatedModel.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Event streams obey their key (issue 15: a stream opened before its key was revoked kept streaming and
 * delivered run.completed with a signed file URL two minutes later; one key held 1,500 streams open).
 * Two API processes on one database: the key is revoked through one, the stream is on the other.
 */
const openStream = (url: string, key: string) => openEventStream(url, { authorization: `Bearer ${key}` });
let api1: TestServer;
let api2: TestServer;
let gated: GatedModel;
let dataDir: string;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-sse-'));
  gated = await startGatedModel(dataDir);
  const env = { ATELIER_STREAMS_PER_KEY: '3', ATELIER_STREAM_KEY_CHECK_MS: '200', ATELIER_ALLOW_PRIVATE_URLS: '1' };
  api1 = await startTestServer(env, { dataDir });
  api2 = await startTestServer(env, { role: 'api', databaseUrl: api1.databaseUrl, dataDir });
});
after(async () => {
  await gated.close();
  await api2.close();
  await api1.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function userWithTwoKeys(srv: TestServer) {
  const u = await srv.user();
  const user = await srv.services.accounts.requireByEmail(u.email);
  return { u, user };
}

test('revoking a key through one process ends its open stream on another with a final error event', async () => {
  const { u, user } = await userWithTwoKeys(api1);
  const run = await api1.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key: u.key, body: { input: { prompt: 'held-1' } } });
  assert.equal(run.status, 202, run.text);
  await gated.waitForStarted(1);
  const s = openStream(`${api2.url}/v1/nodes/runs/${run.body.runId}/events`, u.key);
  assert.equal((await s.first).status, 200);
  await api1.services.keys.revoke(user, 'test');
  const text = await s.text; // ends on its own: the run is still running (its engine is held)
  assert.match(text, /event: error\ndata: \{[^\n]*"code":"UNAUTHORIZED"/);
  assert.doesNotMatch(text, /run\.completed/);
  const body = JSON.parse(/event: error\ndata: (.*)\n/.exec(text)![1]!);
  assert.equal(body.error, body.message);
  assert.match(body.traceId, /^req_/);
  gated.release('held-1');
});

test('an expiring key\'s stream ends too', async () => {
  const { user } = await userWithTwoKeys(api1);
  const short = await api1.services.keys.create(user, { label: 'short', expiresAt: new Date(Date.now() + 60_000) });
  const run = await api1.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key: short.key, body: { input: { prompt: 'held-2' } } });
  assert.equal(run.status, 202, run.text);
  const s = openStream(`${api2.url}/v1/nodes/runs/${run.body.runId}/events`, short.key);
  assert.equal((await s.first).status, 200);
  // Expiry as time would bring it, without waiting for it.
  await api1.services.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [short.id]);
  assert.match(await s.text, /event: error\ndata: \{[^\n]*"code":"UNAUTHORIZED"/);
  gated.release('held-2');
});

test('one key holds at most the configured number of open streams across processes; past it 429', async () => {
  const { u } = await userWithTwoKeys(api1);
  const run = await api1.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key: u.key, body: { input: { prompt: 'held-3' } } });
  const url = (srv: TestServer) => `${srv.url}/v1/nodes/runs/${run.body.runId}/events`;
  const open = [openStream(url(api1), u.key), openStream(url(api2), u.key), openStream(url(api1), u.key)];
  for (const s of open) assert.equal((await s.first).status, 200);
  const over = await api2.request('GET', `/v1/nodes/runs/${run.body.runId}/events`, { key: u.key });
  expectErrorBody(over, 429, 'RATE_LIMITED');
  // Closing one frees its place.
  open[0]!.abort();
  await open[0]!.text;
  const deadline = Date.now() + 30_000;
  let again: Awaited<ReturnType<typeof openStream>> | undefined;
  while (Date.now() < deadline) {
    const s = openStream(url(api2), u.key);
    if ((await s.first).status === 200) {
      again = s;
      break;
    }
    await s.text;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(again, 'a place came free');
  gated.release('held-3');
  for (const s of [...open.slice(1), again]) await s.text;
});
