import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitForStatus } from '../helpers/poll.js';
import { CIRCUIT_THRESHOLD, countsAsFailure, destinationOf, openSecondsAfter } from '../../src/events/fairDelivery.js';

/**
 * Fair webhook delivery (issue 15: A's 40 runs with webhooks to a receiver that never answers delayed B's
 * deliveries from 78 ms to 6.6–9.7 s). Asserted by order: all of B's events are delivered while every one
 * of A's first attempts is still hanging (the attempt time-out is long, so none of A's has ended).
 */
let srv: TestServer;
let live: Awaited<ReturnType<typeof startReceiver>>;
let dead: http.Server;
let deadUrl: string;
let deadHits = 0;
before(async () => {
  srv = await startTestServer({
    ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WEBHOOK_TIMEOUT_MS: '120000', ATELIER_DELIVERY_CONCURRENCY: '4', ATELIER_DELIVERY_PER_DESTINATION: '2',
    ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0,0,0,0,0',
  });
  live = await startReceiver();
  // A receiver that reads each request and never answers.
  dead = http.createServer((req) => {
    deadHits++;
    req.resume();
  });
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/hook`;
});
after(async () => {
  dead.closeAllConnections();
  await new Promise((r) => dead.close(r));
  await live.close();
  await srv.close();
});

const wordCount = (key: string, webhook: unknown, text: string) =>
  srv.request('POST', '/v1/nodes/word_count/run', { key, body: { input: { text }, webhook } });

test('pure parts: destinations, what counts as failing, the back-off', () => {
  assert.equal(destinationOf('acct_1', 'https://a.example:8443/x/y?z=1'), 'acct_1 https://a.example:8443');
  assert.equal(destinationOf('acct_2', 'http://127.0.0.1:9/hook'), 'acct_2 http://127.0.0.1:9');
  assert.ok(countsAsFailure(undefined) && countsAsFailure(503) && countsAsFailure(429));
  assert.ok(!countsAsFailure(200) && !countsAsFailure(410) && !countsAsFailure(400));
  assert.equal(openSecondsAfter(CIRCUIT_THRESHOLD - 1), 0);
  assert.equal(openSecondsAfter(CIRCUIT_THRESHOLD), 5);
  assert.equal(openSecondsAfter(CIRCUIT_THRESHOLD + 1), 10);
  assert.equal(openSecondsAfter(CIRCUIT_THRESHOLD + 30), 600);
});

test('with A\'s receiver hanging, B\'s webhooks are delivered while A\'s wait', async () => {
  const a = await srv.user();
  const b = await srv.user();
  const aRuns: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await wordCount(a.key, { url: deadUrl }, `a run ${i}`);
    assert.equal(r.status, 202, r.text);
    aRuns.push(r.body.runId);
  }
  for (const id of aRuns) await waitForStatus(srv, a.key, `/v1/nodes/runs/${id}`, ['COMPLETED']);
  const bRuns: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await wordCount(b.key, { url: live.url('/b') }, `b run ${i}`);
    assert.equal(r.status, 202, r.text);
    bRuns.push(r.body.runId);
  }
  // Every event of B's runs (started and completed) reaches B's receiver…
  await live.waitFor((all) => bRuns.every((id) => all.some((x) => x.json?.runId === id && x.json?.type === 'run.completed')), 60_000);
  // …while none of A's attempts has ended, and A never had more than its destination's share in flight.
  const a_ = (await srv.services.db.query(`SELECT count(*)::int AS attempts, (SELECT count(*)::int FROM webhook_deliveries WHERE account_id = $1 AND status = 'delivered') AS delivered
    FROM webhook_attempts t JOIN webhook_deliveries d ON d.id = t.delivery_id WHERE d.account_id = $1`, [a.accountId])).rows[0];
  assert.equal(a_.attempts, 0, 'an attempt to A\'s receiver ended before B was served');
  assert.equal(a_.delivered, 0);
  assert.ok(deadHits <= 2, `${deadHits} requests in flight to A's receiver (limit 2)`);
});

test('a failing endpoint\'s circuit opens, its deliveries wait without spending attempts, others still flow', async () => {
  const c = await srv.user();
  const d = await srv.user();
  live.setResponder((r) => (r.path === '/failing' ? 503 : 200));
  const failing = live.url('/failing').replace('127.0.0.1', 'localhost');
  const cRuns: string[] = [];
  for (let i = 0; i < 3; i++) cRuns.push((await wordCount(c.key, { url: failing }, `c ${i}`)).body.runId);
  // Retries at once (schedule of zeros) until the circuit opens after the threshold of failures.
  const deadline = Date.now() + 60_000;
  let row: any;
  while (Date.now() < deadline) {
    row = (await srv.services.db.query(`SELECT failures, open_until > now() AS open FROM webhook_endpoints WHERE destination = $1`, [destinationOf(c.accountId, failing)])).rows[0];
    if (row?.open) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(row?.open, `circuit not open: ${JSON.stringify(row)}`);
  const attemptsAtOpen = (await srv.services.db.query(`SELECT sum(attempts)::int AS n FROM webhook_deliveries WHERE account_id = $1`, [c.accountId])).rows[0].n;
  // Another destination is served meanwhile.
  const r = await wordCount(d.key, { url: live.url('/other') }, 'other');
  await live.waitFor((all) => all.some((x) => x.path === '/other' && x.json?.type === 'run.completed'), 60_000);
  const attemptsAfter = (await srv.services.db.query(`SELECT sum(attempts)::int AS n, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM webhook_deliveries WHERE account_id = $1`, [c.accountId])).rows[0];
  // At most one probe if the back-off lapsed meanwhile on a slow machine; never the retry schedule's burst.
  assert.ok(attemptsAfter.n <= attemptsAtOpen + 1, `attempts while the circuit is open: ${attemptsAfter.n - attemptsAtOpen}`);
  assert.ok(attemptsAfter.pending > 0, 'deliveries wait, not failed');
  assert.ok(r.status === 202);
});
