import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { GATED_NODE_TYPE, startGatedModel, type GatedModel } from '../helpers/gatedModel.js';
import { deferSeconds, fairPriority, MIN_PRIORITY } from '../../src/queue/fairness.js';

/**
 * Fair scheduling between accounts, asserted by order (issue 15: A's 10 queued runs made B's word_count
 * wait 215 s). One engine slot; A queues a backlog of runs of a test-only slow model first, then B queues
 * one: B's run must start before A's second.
 */
let srv: TestServer;
let gated: GatedModel;
let dataDir: string;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-fair-'));
  gated = await startGatedModel(dataDir);
  // The gated model is remote, and a remote run gives its CPU slot back (issue 31, execution/remoteLane.ts):
  // a worker cap of one remote run keeps the others waiting, so the order they start in is the queue's.
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WORKER_CONCURRENCY: '1', ATELIER_ACCOUNT_CONCURRENCY: '1', ATELIER_REMOTE_INFLIGHT: '1' }, { dataDir });
});
after(async () => {
  await gated.close();
  await srv.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const run = async (key: string, prompt: string) => {
  const r = await srv.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key, body: { input: { prompt } } });
  assert.equal(r.status, 202, r.text);
  return r.body.runId as string;
};

test('priorities: an account\'s first run outranks another account\'s backlog', () => {
  assert.equal(fairPriority(0), 0);
  assert.equal(fairPriority(9), -9);
  assert.equal(fairPriority(1e9), MIN_PRIORITY);
  assert.equal(deferSeconds(1, 1), 1);
  assert.equal(deferSeconds(100, 1), 5);
});

test('with A\'s backlog queued first on one engine slot, B\'s run starts before A\'s second', async () => {
  const a = await srv.user();
  const b = await srv.user();
  const aRuns: string[] = [];
  for (let i = 1; i <= 4; i++) aRuns.push(await run(a.key, `A${i}`));
  assert.deepEqual(await gated.waitForStarted(1), ['A1']);
  const bRun = await run(b.key, 'B1');
  gated.release('A1');
  // The next run to reach the engine is B's, though A's three were queued before it.
  assert.deepEqual(await gated.waitForStarted(2), ['A1', 'B1']);
  gated.release('B1');
  // A's others follow one at a time (its limit is 1). The gated model is remote, and a remote run holds no
  // engine slot (issue 31): A's runs wait by the per-account limit's deferral, which keeps no order among
  // one account's own runs, so each is released as it starts.
  for (let n = 3; n <= 5; n++) gated.release((await gated.waitForStarted(n)).at(-1)!);
  assert.deepEqual(gated.started.slice(0, 2), ['A1', 'B1']);
  assert.deepEqual(gated.started.slice(2).sort(), ['A2', 'A3', 'A4']);
  for (const id of [...aRuns, bRun]) {
    const k = id === bRun ? b.key : a.key;
    assert.equal((await waitForStatus(srv, k, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  }
});

test('the per-account limit holds one account to its share while another account\'s run takes the free slot', async () => {
  // Two engine slots, limit 1 per account: A's second run waits although a slot is free, B's starts.
  const srv2 = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WORKER_CONCURRENCY: '2', ATELIER_ACCOUNT_CONCURRENCY: '1' }, { dataDir });
  try {
    gated.started.length = 0;
    const a = await srv2.user();
    const b = await srv2.user();
    const r = async (key: string, prompt: string) => (await srv2.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key, body: { input: { prompt } } })).body.runId as string;
    const a1 = await r(a.key, 'L-A1');
    await gated.waitForStarted(1);
    const a2 = await r(a.key, 'L-A2');
    // A's second run is offered to the free slot and put back (the account is at its limit) until A1 ends.
    await waitForJobDeferred(srv2, a2);
    const b1 = await r(b.key, 'L-B1');
    assert.deepEqual(await gated.waitForStarted(2), ['L-A1', 'L-B1']);
    assert.equal((await srv2.request('GET', `/v1/nodes/runs/${a2}`, { key: a.key })).body.status, 'QUEUED');
    gated.release('L-A1');
    gated.release('L-B1');
    assert.deepEqual(await gated.waitForStarted(3), ['L-A1', 'L-B1', 'L-A2']);
    gated.release('L-A2');
    for (const [k, id] of [[a.key, a1], [b.key, b1], [a.key, a2]] as const) {
      assert.equal((await waitForStatus(srv2, k, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    }
  } finally {
    await srv2.close();
  }
});

test('a run whose worker died is taken again although its account is at its limit (it is one of the runs counted)', async () => {
  // Limit 1: the run itself is the account's one running run. Its lease is made to lapse as a dead worker's
  // would (another owner, expired); the sweeper queues it again and the claim must take it, not put it back.
  const srv3 = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_ACCOUNT_CONCURRENCY: '1', ATELIER_SWEEP_INTERVAL_MS: '200' }, { dataDir });
  try {
    gated.started.length = 0;
    const a = await srv3.user();
    const id = (await srv3.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key: a.key, body: { input: { prompt: 'D-A1' } } })).body.runId as string;
    await gated.waitForStarted(1);
    await srv3.services.db.query(`UPDATE runs SET lease_owner = 'a-worker-that-died', lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    assert.deepEqual(await gated.waitForStarted(2), ['D-A1', 'D-A1'], 'the run started again');
    gated.release('D-A1');
    assert.equal((await waitForStatus(srv3, a.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  } finally {
    await srv3.close();
  }
});

/** Waits until the run's job has been put back at least once (a second job for it exists). */
async function waitForJobDeferred(s: TestServer, runId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const n = (await s.services.db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'run' AND data->>'runId' = $1`, [runId])).rows[0].n;
    if (n >= 2) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the job was never put back');
}
