import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitForStatus } from '../helpers/poll.js';
import { CIRCUIT_THRESHOLD, destinationOf } from '../../src/events/fairDelivery.js';
import { runDoctor } from '../../src/ops/doctor.js';

/**
 * Issue 26, finding 2: the delivery circuit was keyed by scheme://host:port and its probe took the oldest
 * due delivery, so with Alice's path on a shared receiver answering 500, Bob's deliveries to his own path
 * on the same host stayed pending with no attempt for 20 minutes, and `atelier doctor` said all was well.
 * Circuits, probes and shares are now per account and origin (src/events/fairDelivery.ts).
 */
let srv: TestServer;
let shared: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  srv = await startTestServer({
    ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WEBHOOK_TIMEOUT_MS: '10000',
    // Retries at once, so Alice's failures pile up and her circuit opens (and its back-off grows) quickly.
    ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0,0,0,0,0',
  });
  shared = await startReceiver();
  shared.setResponder((r) => (r.path.startsWith('/alice') ? 500 : 200));
});
after(async () => {
  await shared?.close();
  await srv?.close();
});

const wordCount = (key: string, url: string, text: string) =>
  srv.request('POST', '/v1/nodes/word_count/run', { key, body: { input: { text }, webhook: { url } } });

test('Alice\'s failing path on a shared host opens only her circuit: Bob\'s 20 deliveries go out at once; doctor names Alice\'s held deliveries', async () => {
  const alice = await srv.user();
  const bob = await srv.user();
  for (let i = 0; i < 10; i++) assert.equal((await wordCount(alice.key, shared.url('/alice/hook'), `alice ${i}`)).status, 202);

  // Alice's circuit opens, and stays open past a probe or two (its back-off doubles with each failure).
  const aliceDest = destinationOf(alice.accountId, shared.url('/alice/hook'));
  const deadline = Date.now() + 120_000;
  let circuit: { failures: number; open: boolean } | undefined;
  while (Date.now() < deadline) {
    circuit = (await srv.services.db.query(`SELECT failures, open_until > now() AS open FROM webhook_endpoints WHERE destination = $1`, [aliceDest])).rows[0];
    if (circuit?.open && circuit.failures >= CIRCUIT_THRESHOLD + 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(circuit?.open && circuit.failures >= CIRCUIT_THRESHOLD + 1, `Alice's circuit: ${JSON.stringify(circuit)}`);

  // Bob, on the same host and port, his own path: every one of his events arrives, each at its first attempt.
  const bobRuns: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await wordCount(bob.key, shared.url('/bob/hook'), `bob ${i}`);
    assert.equal(r.status, 202, r.text);
    bobRuns.push(r.body.runId);
  }
  for (const id of bobRuns) await waitForStatus(srv, bob.key, `/v1/nodes/runs/${id}`, ['COMPLETED']);
  await shared.waitFor((all) => bobRuns.every((id) => all.some((x) => x.path === '/bob/hook' && x.json?.runId === id && x.json?.type === 'run.completed')), 90_000);
  const bobRows = (await srv.services.db.query(`SELECT status, attempts FROM webhook_deliveries WHERE account_id = $1`, [bob.accountId])).rows;
  assert.equal(bobRows.length, 20, 'two events (started, completed) per run');
  for (const row of bobRows) assert.deepEqual(row, { status: 'delivered', attempts: 1 });
  // Bob's successes did not close Alice's circuit (it is hers alone), and Bob never had one.
  const stillOpen = (await srv.services.db.query(`SELECT failures FROM webhook_endpoints WHERE destination = $1`, [aliceDest])).rows[0];
  assert.ok(stillOpen?.failures >= CIRCUIT_THRESHOLD, 'Alice\'s circuit was closed by someone else\'s success');
  assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE destination = $1`, [destinationOf(bob.accountId, shared.url('/bob/hook'))])).rows[0].n, 0);

  // The doctor reports the deliveries held behind Alice's open circuit (threshold 0: anything due), and nothing of Bob's.
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 0 });
  const held = report.findings.filter((f) => f.check === 'circuit_held_deliveries');
  assert.deepEqual(held.map((f) => f.subject), [aliceDest], JSON.stringify(report.findings));
  assert.match(held[0]!.message, new RegExp(`of account ${alice.accountId} to ${shared.url('').replace(/\/$/, '')} wait behind its open circuit`));
  assert.ok(!report.findings.some((f) => JSON.stringify(f).includes(bob.accountId)), 'nothing of Bob\'s is reported');
});
