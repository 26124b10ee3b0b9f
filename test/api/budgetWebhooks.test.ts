import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import sharp from 'sharp';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import { waitForStatus } from '../helpers/poll.js';
import { EDGE_FED_VIDEO } from '../helpers/edgeFedWorkflow.js';

// Issue 29 item 1: a spend limit's 50 %, 80 % and 100 % reach the account's webhook receiver — a real HTTP
// server here — as signed `budget.threshold` deliveries, each once per period, even when the spend falls
// back below a threshold (a failed run's hold given back) and crosses it again.
let srv: TestServer;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let image: string;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  rx = await startReceiver();
  // The failing run's image: its URL answers 404, so the run fails after its hold was made.
  rx.setResponder((r) => (r.path === '/missing.png' ? 404 : 200));
  image = `data:image/png;base64,${(await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 90, g: 40, b: 160 } } }).png().toBuffer()).toString('base64')}`;
});
after(async () => {
  await rx?.close();
  await srv?.close();
});

/**
 * The check README ("Webhooks you can trust") tells receivers to make, by hand: `webhook-signature` holds
 * `v1,` + base64 HMAC-SHA256 of `id.timestamp.rawBody` keyed with the secret's base64 part, the timestamp
 * is recent, and the raw body is what was signed.
 */
function verified(d: Received, secret: string): boolean {
  const id = d.headers['webhook-id'];
  const ts = d.headers['webhook-timestamp'];
  const sigs = d.headers['webhook-signature'];
  if (!id || !ts || !sigs || !/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const expected = crypto.createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${d.body}`).digest();
  return sigs.split(' ').some((s) => {
    const [version, mac] = s.split(',');
    const given = Buffer.from(mac ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}

test('a key limit\'s 50, 80 and 100 % arrive signed at the webhook receiver, once each in the period', async () => {
  const u = await srv.user({ microcredits: 10_000_000n });
  const secret = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret as string;
  const video = (image_url: string) => ({ input: { image_url, duration: 5, ...EDGE_FED_VIDEO }, webhook: { url: rx.url('/budget'), events: ['budget.threshold'] } });
  const price = (await srv.request('POST', '/v1/nodes/estimate-credits', { key: u.key, body: { nodeType: 'ken_burns_video', input: video(image).input } })).body.estimates[0].microcredits as number;
  assert.ok(price > 0);
  const keyId = (await srv.request('GET', '/v1/keys', { key: u.key })).body.keys[0].id;
  const limit = 10 * price;
  assert.equal((await srv.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { budgets: { day: limit } } })).status, 200);

  const runOnce = async (url: string, expect: 'COMPLETED' | 'FAILED') => {
    const created = await srv.request('POST', '/v1/nodes/ken_burns_video/run', { key: u.key, body: video(url) });
    assert.equal(created.status, 202, created.text);
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED', 'CANCELED'], 120_000);
    assert.equal(done.status, expect, done.error);
    return created.body.runId as string;
  };
  const runs: string[] = [];
  for (let i = 0; i < 4; i++) runs.push(await runOnce(image, 'COMPLETED')); // 40 %
  // The fifth run's hold takes the spend to 50 %; it fails and gives it back (40 %).
  const dipped = await runOnce(rx.url('/missing.png'), 'FAILED');
  runs.push(await runOnce(image, 'COMPLETED')); // 50 % again: no second 50 % event in this period
  for (let i = 0; i < 5; i++) runs.push(await runOnce(image, 'COMPLETED')); // 60, 70, 80, 90, 100 %
  const refused = expectErrorBody(await srv.request('POST', '/v1/nodes/ken_burns_video/run', { key: u.key, body: video(image) }), 403, 'BUDGET_EXCEEDED');
  assert.equal(refused.limit.period, 'day');

  await rx.waitFor(() => rx.forPath('/budget').length >= 3, 60_000);
  const got = rx.forPath('/budget');
  for (const d of got) assert.ok(verified(d, secret), `the delivery ${d.headers['webhook-id']} carries a valid signature`);
  // A receiver de-duplicates by webhook-id: three distinct events, one per threshold.
  const events = [...new Map(got.map((d) => [d.headers['webhook-id'], d.json])).values()];
  assert.deepEqual(events.map((e) => e.data.percent), [50, 80, 100]);
  const tomorrow = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1)).toISOString();
  for (const e of events) {
    assert.equal(e.type, 'budget.threshold');
    assert.equal(e.success, true);
    assert.equal(e.data.scope, 'key');
    assert.equal(e.data.keyId, keyId);
    assert.equal(e.data.period, 'day');
    assert.equal(e.data.limitMicrocredits, limit);
    assert.equal(Date.parse(e.data.resetsAt), Date.parse(tomorrow));
  }
  // Each is carried by the run whose hold crossed it: the failed fifth run for 50 %, the ninth and eleventh
  // for 80 and 100 % — not the sixth, which crossed 50 % again.
  assert.deepEqual(events.map((e) => e.runId), [dipped, runs[7], runs[9]]);
  assert.deepEqual(events.map((e) => e.data.spentMicrocredits), [5 * price, 8 * price, 10 * price]);
  // The outbox holds no other threshold event for the account, so no further delivery can follow.
  const stored = await srv.services.db.query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'budget.threshold'`, [u.accountId]);
  assert.equal(stored.rows[0].n, 3);
  // A tampered body fails the same check.
  assert.equal(verified({ ...got[0]!, body: got[0]!.body.replace('"percent":50', '"percent":5') }, secret), false);
});
