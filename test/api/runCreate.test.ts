import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';

// Issue 17 item 3: a run is created by one statement (claim, reservation, run, ledger row, queue job).
// An API-only server: no worker takes the jobs, so they can be read as written.
let srv: TestServer;
before(async () => {
  srv = await startTestServer({}, { role: 'api' });
});
after(async () => {
  await srv.close();
});

const PRICE = 500; // word_count's flat price in microcredits
const create = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  srv.request('POST', '/v1/nodes/word_count/run', { key, body, headers });
const count = async (sql: string, values: unknown[]) => (await srv.services.db.query(sql, values)).rows[0].n as number;

describe('run creation in one statement', () => {
  test('writes the run, its hold and ledger row, and a job identical to pg-boss\'s own send()', async () => {
    const u = await srv.user({ microcredits: 10_000n });
    const r = await create(u.key, { input: { text: 'one two three' } });
    assert.equal(r.status, 202, r.text);
    const runId = r.body.runId;
    const run = (await srv.services.db.query(`SELECT status, reserved_microcredits, estimated_microcredits, enqueued_at, timeout_seconds FROM runs WHERE id = $1`, [runId])).rows[0];
    assert.equal(run.status, 'QUEUED');
    assert.equal(run.reserved_microcredits, BigInt(PRICE));
    assert.ok(run.enqueued_at);
    const ledger = (await srv.services.db.query(`SELECT kind, posted_delta, reserved_delta FROM ledger_entries WHERE run_id = $1`, [runId])).rows;
    assert.deepEqual(ledger, [{ kind: 'reserve', posted_delta: 0n, reserved_delta: BigInt(PRICE) }]);
    const balance = await srv.services.credits.balance(u.accountId);
    assert.equal(balance.reserved, BigInt(PRICE));

    // The same job through pg-boss's send() (enqueueRun), for comparison.
    const other = 'run_parity_check';
    await srv.services.db.tx((tx) => srv.services.queue.enqueueRun(tx, { runId: other, kind: 'node' }, run.timeout_seconds + 60, { stamped: true }));
    const jobs = (await srv.services.db.query(`SELECT data->>'runId' AS run, name, data, priority, state, retry_limit, retry_delay, retry_backoff,
        expire_in, policy, dead_letter, singleton_key, singleton_on, (keep_until - start_after) AS keep, (start_after <= now()) AS due
      FROM pgboss.job WHERE data->>'runId' = ANY($1) ORDER BY run`, [[runId, other]])).rows;
    assert.equal(jobs.length, 2);
    const [mine, theirs] = jobs[0].run === runId ? [jobs[0], jobs[1]] : [jobs[1], jobs[0]];
    assert.deepEqual(mine.data, { runId, kind: 'node' });
    const strip = (j: any) => ({ ...j, run: undefined, data: { ...j.data, runId: undefined } });
    assert.deepEqual(strip(mine), strip(theirs));
  });

  test('a balance that cannot cover the run refuses it and writes nothing at all', async () => {
    const u = await srv.user({ microcredits: BigInt(PRICE - 1) });
    const before = await count(`SELECT count(*)::int AS n FROM pgboss.job`, []);
    const r = await create(u.key, { input: { text: 'too dear' } }, { 'idempotency-key': 'poor-1' });
    const body = expectErrorBody(r, 403, 'INSUFFICIENT_CREDITS');
    assert.equal(body.requiredMicrocredits, PRICE);
    assert.equal(body.availableMicrocredits, PRICE - 1);
    assert.equal(await count(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [u.accountId]), 0);
    assert.equal(await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId]), 0);
    assert.equal(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE account_id = $1`, [u.accountId]), 0);
    assert.equal(await count(`SELECT count(*)::int AS n FROM pgboss.job`, []), before);
    const balance = await srv.services.credits.balance(u.accountId);
    assert.equal(balance.reserved, 0n);
    // Topped up, the same Idempotency-Key now creates the run (the refused attempt claimed nothing).
    await srv.services.credits.grant(u.accountId, 1n);
    assert.equal((await create(u.key, { input: { text: 'too dear' } }, { 'idempotency-key': 'poor-1' })).status, 202);
  });

  test('concurrent requests with one Idempotency-Key create one run, reserve once and all answer with it', async () => {
    const u = await srv.user({ microcredits: 100_000n });
    const body = { input: { text: 'only once' } };
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(u.key, body, { 'idempotency-key': 'same-key' })));
    for (const a of answers) assert.equal(a.status, 202, a.text);
    const ids = new Set(answers.map((a) => a.body.runId));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 11);
    assert.equal(await count(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [u.accountId]), 1);
    assert.equal(await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId]), 1);
    assert.equal(await count(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = $1`, [[...ids][0]]), 1);
    // The same key with another body is a conflict, and writes nothing.
    expectErrorBody(await create(u.key, { input: { text: 'something else' } }, { 'idempotency-key': 'same-key' }), 409, 'CONFLICT');
    assert.equal(await count(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [u.accountId]), 1);
  });

  test('parallel creates of one account never reserve more than its balance', async () => {
    const u = await srv.user({ microcredits: BigInt(PRICE * 5) });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(u.key, { input: { text: `run ${i}` } })));
    assert.equal(answers.filter((a) => a.status === 202).length, 5);
    for (const a of answers.filter((x) => x.status !== 202)) expectErrorBody(a, 403, 'INSUFFICIENT_CREDITS');
    const balance = await srv.services.credits.balance(u.accountId);
    assert.equal(balance.reserved, BigInt(PRICE * 5));
    assert.equal(balance.available, 0n);
    assert.equal(await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId]), 5);
  });
});
