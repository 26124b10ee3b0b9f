import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { balance, waitForStatus } from '../../helpers/poll.js';
import { startOpenAIFake, type OpenAIFake } from '../../helpers/providers/openai.js';

/**
 * Issue 28, provider finding 4, through a whole Atelier: a compatible server's `b64_json: "string"` became a
 * 4-byte image.bin, the run COMPLETED and its price was captured. An output is checked by its bytes before
 * it is stored or charged: otherwise the run fails and the reservation is released.
 */
const VARS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
const KEY = 'sk-outputs-0123456789';
let fake: OpenAIFake;
let srv: TestServer;
before(async () => {
  fake = await startOpenAIFake({ apiKey: KEY, models: ['gpt-image-2'] });
  process.env.OPENAI_API_KEY = KEY;
  process.env.OPENAI_BASE_URL = `${fake.url}/v1`;
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
  await fake.close();
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

async function ledgerOf(key: string, runId: string) {
  const items = (await srv.request('GET', '/v1/credits/ledger?limit=200', { key })).body.items as Array<{ kind: string; runId: string | null }>;
  return items.filter((r) => r.runId === runId).map((r) => r.kind).sort();
}
const filesOf = async (accountId: string) => Number((await srv.services.db.query('SELECT count(*) AS n FROM files WHERE account_id = $1', [accountId])).rows[0].n);

test('a real PNG: the run COMPLETES, the image is stored and the price captured', async () => {
  const u = await srv.user();
  const r = await srv.request('POST', '/v1/nodes/gpt_image_2/run', { key: u.key, body: { input: { prompt: 'a fox' } } });
  assert.equal(r.status, 202, r.text);
  const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
  assert.equal(run.status, 'COMPLETED', run.error);
  assert.equal(run.files[0].contentType, 'image/png');
  assert.deepEqual(await ledgerOf(u.key, run.id), ['capture', 'reserve']);
});

test('b64_json "string": the run FAILS with a provider error, nothing is stored, the reservation is released', async () => {
  const u = await srv.user();
  const before = await balance(srv, u.key);
  fake.inject('POST', /^\/v1\/images\/generations$/, { json: { created: 1, data: [{ b64_json: 'string' }] } });
  const r = await srv.request('POST', '/v1/nodes/gpt_image_2/run', { key: u.key, body: { input: { prompt: 'a fox' } } });
  assert.equal(r.status, 202, r.text);
  const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
  assert.equal(run.status, 'FAILED');
  assert.match(run.error, /not image/);
  assert.equal(run.creditUsed, 0);
  assert.equal(await filesOf(u.accountId), 0);
  assert.deepEqual(await ledgerOf(u.key, run.id), ['release', 'reserve']);
  assert.deepEqual(await balance(srv, u.key), before);
});
