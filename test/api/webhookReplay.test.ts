import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/poll.js';
import { startReceiver } from '../helpers/receiver.js';

// POST /v1/webhooks/deliveries/{id}/replay sends at once, even while the delivery waits for its next retry (issue 18).
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
const req = (method: string, path: string, body?: unknown) => srv.request(method, path, { key, body });

test('replaying a delivery that is still retrying sends it now', async () => {
  rx.setResponder((r, n) => (r.path === '/retrying' && n === 1 ? 500 : 200));
  const r = await req('POST', '/v1/nodes/sfxr_sound_effects/run', { subModelId: 'sfxr-jump', input: {}, webhook: { url: rx.url('/retrying'), events: ['run.completed'] } });
  assert.equal(r.status, 202, r.text);
  await rx.waitFor(() => rx.forPath('/retrying').length >= 1, 60_000);
  const eventId = rx.forPath('/retrying')[0]!.headers['webhook-id']!;
  const pending = await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`);
  await until('first attempt recorded', async () => (await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`)).body.items[0]?.attempts === 1);
  assert.equal(pending.status, 200);
  const rep = await req('POST', `/v1/webhooks/deliveries/${eventId}/replay`);
  assert.equal(rep.status, 202, rep.text);
  // Without the fix the replay waits behind the original's next attempt, an hour away.
  await rx.waitFor(() => rx.forPath('/retrying').length >= 2, 30_000);
  assert.equal(rx.forPath('/retrying')[1]!.headers['webhook-id'], eventId);
  await until('every delivery delivered', async () => (await req('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`)).body.items.every((d: any) => d.status === 'delivered'));
});

