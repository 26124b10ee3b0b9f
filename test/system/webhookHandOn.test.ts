import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/ids.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

// Issue 17 (webhook throughput): a delivered attempt hands its slot on to the destination's next due
// delivery in the statement that records it (fairDelivery.ts RECORD_DELIVERED_AND_HAND_ON), so a backlog
// drains without a claim per attempt. It may do so only while the pool has another slot free: two busy
// destinations must not keep every slot to themselves while a third one's deliveries wait.
let srv: TestServer;
const receivers: Array<Awaited<ReturnType<typeof startReceiver>>> = [];

before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_DELIVERY_CONCURRENCY: '4', ATELIER_DELIVERY_PER_DESTINATION: '2' });
  for (let i = 0; i < 3; i++) receivers.push(await startReceiver());
});
after(async () => {
  for (const r of receivers) await r.close();
  await srv?.close();
});

/** Puts `n` due deliveries to `url` straight into the outbox (one event each, of separate runs) and wakes the deliverer. */
async function backlog(accountId: string, url: string, n: number) {
  const ids = Array.from({ length: n }, () => newId('evt'));
  const runs = Array.from({ length: n }, () => newId('run'));
  const payload = { success: true, type: 'run.completed', data: { status: 'COMPLETED' } };
  await srv.services.db.tx(async (tx) => {
    await tx.query(`INSERT INTO events (event_id, account_id, run_id, type, payload) SELECT e, $3, r, 'run.completed', $4 FROM unnest($1::text[], $2::text[]) AS t(e, r)`, [ids, runs, accountId, payload]);
    await tx.query(`INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, status, next_attempt_at) SELECT e, $3, r, $4, 'pending', now() FROM unnest($1::text[], $2::text[]) AS t(e, r)`, [ids, runs, accountId, url]);
  });
  await srv.services.db.query(`SELECT pg_notify('atelier_deliveries', '')`);
}

test('busy destinations hand their slots on, yet a third destination is served while their backlogs last', async () => {
  const u = await srv.user();
  const [x, y, z] = receivers as [typeof receivers[0], typeof receivers[0], typeof receivers[0]];
  // Two slots each (the per-destination limit) make all four slots X's and Y's once both are going.
  await backlog(u.accountId, x.url('/x'), 150);
  await backlog(u.accountId, y.url('/y'), 150);
  await x.waitFor((all) => all.length >= 5, 60_000);
  await y.waitFor((all) => all.length >= 5, 60_000);
  await backlog(u.accountId, z.url('/z'), 3);
  await z.waitFor((all) => all.length >= 3, 60_000);
  const pending = (await srv.services.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending' AND url NOT LIKE $1`, [`${z.url('')}%`])).rows[0].n;
  assert.ok(pending > 0, 'Z waited until X\'s and Y\'s backlogs had drained');
  // Everything is delivered once.
  await x.waitFor((all) => all.length >= 150, 120_000);
  await y.waitFor((all) => all.length >= 150, 120_000);
  // A receiver has the body a moment before the deliverer records the attempt: wait for the rows.
  const countsNow = async () => (await srv.services.db.query(`SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*)::int AS total FROM webhook_deliveries WHERE account_id = $1`, [u.accountId])).rows[0];
  const deadline = Date.now() + 60_000;
  let counts = await countsNow();
  while (counts.delivered < 303 && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 100));
    counts = await countsNow();
  }
  assert.deepEqual(counts, { delivered: 303, total: 303 });
  assert.equal(x.received.length + y.received.length + z.received.length, 303);
});
