import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { Atelier, verifyWebhook } from '../../packages/sdk/src/index.js';

/** End to end: a run's real deliveries verify with the secret the SDK fetched, and replay works. */
let srv: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await srv?.close();
});

test('deliveries of a run verify with verifyWebhook; deliveries() lists them and replay() resends', async () => {
  const { key } = await srv.user();
  const client = new Atelier({ apiKey: key, baseUrl: srv.url });
  const { secret } = await client.webhooks.secret();
  const handle = await client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 3 }, webhook: { url: receiver.url('/sdk'), metadata: { order: 7 } } });
  await handle.wait({ timeoutMs: 30_000 });
  await receiver.waitFor((all) => all.some((r) => r.json?.type === 'run.completed'));

  for (const r of receiver.forPath('/sdk')) {
    const event = verifyWebhook(r.body, r.headers, secret);
    assert.equal(event.runId, handle.runId);
    assert.deepEqual(event.metadata, { order: 7 });
  }
  const completed = receiver.forPath('/sdk').find((r) => r.json?.type === 'run.completed')!;
  assert.throws(() => verifyWebhook(completed.body.replace('"success":true', '"success":false'), completed.headers, secret));

  const page = await client.webhooks.deliveries({ runId: handle.runId });
  const delivered = page.items.find((d) => d.eventType === 'run.completed');
  assert.ok(delivered, JSON.stringify(page.items));
  const before = receiver.forPath('/sdk').length;
  const replay = await client.webhooks.replay(delivered.eventId);
  assert.equal(replay.eventId, delivered.eventId);
  await receiver.waitFor((all) => all.filter((r) => r.path === '/sdk').length > before);
  const again = receiver.forPath('/sdk').at(-1)!;
  assert.equal(again.headers['webhook-id'], completed.headers['webhook-id'], 'a replay keeps the event id');
  assert.equal(verifyWebhook(again.body, again.headers, secret).type, 'run.completed');
});
