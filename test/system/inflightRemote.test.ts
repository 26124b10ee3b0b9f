import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { siblingEnv, spawnRole, type RoleProcess } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';
import { startGatedChat, type GatedChat } from '../helpers/providers/gatedChat.js';

/**
 * Issue 31 item 0, "waiting is not working": a remote run used to hold one of the worker's
 * ATELIER_WORKER_CONCURRENCY slots (2) for as long as its provider took, so one worker waited on two
 * provider calls at a time. Now one worker process (a real `atelier serve --role worker`) holds far more
 * calls than it has slots, its per-provider limit holds, a local run still starts while they wait, a
 * cancel ends an in-flight call, and a worker killed with SIGKILL while holding calls loses none: the
 * sweeper hands them to another worker and each is charged once. The provider is an OpenAI-compatible
 * fake that answers when the test releases it (no sleeps).
 */

const SLOTS = 2;
const PROVIDER_LIMIT = 150;
const RUNS = 200;

let fake: GatedChat;
let api: TestServer;
let worker: RoleProcess;
const workers: RoleProcess[] = [];
let user: { key: string; accountId: string };

function workerEnv(): Record<string, string> {
  return {
    ...siblingEnv(api), LOG_LEVEL: 'info', ATELIER_ALLOW_PRIVATE_URLS: '1',
    OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test',
    ATELIER_WORKER_CONCURRENCY: String(SLOTS), ATELIER_PROVIDER_CONCURRENCY_OPENAI: String(PROVIDER_LIMIT),
    ATELIER_ACCOUNT_CONCURRENCY: '0', ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200',
  };
}

before(async () => {
  fake = await startGatedChat();
  // The API process reads the provider's model list for availability from its own environment.
  Object.assign(process.env, { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', ATELIER_ALLOW_PRIVATE_URLS: '1' });
  api = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { role: 'api' });
  user = await api.user({ microcredits: 10n ** 12n, perMinute: 10_000 });
  worker = await spawnRole('worker', workerEnv());
  workers.push(worker);
});

after(async () => {
  fake.release();
  for (const w of workers) await w.stop();
  await api.close();
  await fake.close();
});

const count = async (sql: string, values: unknown[] = []) => (await api.services.db.query(sql, values)).rows[0].n as number;

/** The last status summary read while waiting for runs to end (a timed-out wait prints it). */
let lastSeen = '';
async function completed(ids: string[]): Promise<number> {
  const rows = (await api.services.db.query(`SELECT status, count(*)::int AS n, max(attempts)::int AS attempts, max(error) AS error FROM runs WHERE id = ANY($1) GROUP BY status`, [ids])).rows;
  lastSeen = `${rows.map((r) => `${r.status} ${r.n} (attempts ≤ ${r.attempts}${r.error ? `, e.g. ${r.error}` : ''})`).join(', ')}; provider received ${fake.received}, open ${fake.open}`;
  return rows.find((r) => r.status === 'COMPLETED')?.n ?? 0;
}
const seen = () => `${lastSeen}\n${workers.map((w) => w.tail()).join('\n')}`;

async function createRemote(n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < n) {
      const i = next++;
      const r = await api.request('POST', '/v1/nodes/gpt_5_4/run', { key: user.key, body: { input: { prompt: `${tag} ${i}` } } });
      assert.equal(r.status, 202, r.text);
      ids.push(r.body.runId);
    }
  }));
  return ids;
}

test('one worker holds more remote calls than it has slots, within the provider limit, and a local run starts meanwhile', async () => {
  const ids = await createRemote(RUNS, 'wide');
  await until(`${PROVIDER_LIMIT} calls held at the provider`, () => fake.open === PROVIDER_LIMIT, 120_000, () => `open ${fake.open}, ${worker.tail()}`);
  // The rest are claimed too, waiting in the worker for the provider's permit (leased and cancelable).
  await until('every remote run claimed', async () => (await count(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status = 'RUNNING'`, [ids])) === RUNS, 60_000);
  assert.ok(fake.open > SLOTS, `more calls in flight (${fake.open}) than CPU slots (${SLOTS})`);

  // A local run queued now starts on a CPU slot while all of them wait.
  const local = await api.request('POST', '/v1/nodes/word_count/run', { key: user.key, body: { input: { text: 'one two three' } } });
  assert.equal(local.status, 202, local.text);
  await until('the local run to complete', async () => (await count(`SELECT count(*)::int AS n FROM runs WHERE id = $1 AND status = 'COMPLETED'`, [local.body.runId])) === 1, 60_000);
  assert.equal(fake.open, PROVIDER_LIMIT, 'the remote calls were still waiting when the local run completed');

  fake.release();
  await until('every remote run to complete', async () => (await completed(ids)) === RUNS, 120_000, seen);
  assert.ok(fake.peakOpen <= PROVIDER_LIMIT, `the provider never held more than ${PROVIDER_LIMIT} calls (peak ${fake.peakOpen})`);
  assert.equal(fake.received, RUNS, 'one provider call per run');
  // The adapter's last progress report ("done") is written by the settle itself (runs/finalProgress.ts), as before.
  assert.equal(await count(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND progress = 1 AND progress_message = 'done'`, [ids]), RUNS);
  assert.equal((await api.request('GET', `/v1/nodes/runs/${ids[0]}`, { key: user.key })).body.progressMessage, 'done');
  fake.hold();
});

test('a cancel ends an in-flight remote call and refunds the run', async () => {
  const before = fake.abandoned;
  const ids = await createRemote(10, 'cancel');
  await until('10 calls held', async () => (await completed(ids)) < 0 || fake.open === 10, 60_000, seen);
  const r = await api.request('POST', `/v1/nodes/runs/${ids[0]}/cancel`, { key: user.key });
  assert.ok(r.status === 200 || r.status === 202, r.text);
  await until('the provider call to be dropped', () => fake.abandoned === before + 1, 30_000);
  assert.equal(fake.open, 9);
  fake.release();
  await until('the others to complete', async () => (await completed(ids.slice(1))) === 9, 60_000, seen);
  const run = (await api.services.db.query(`SELECT status, charged_microcredits, reserved_microcredits FROM runs WHERE id = $1`, [ids[0]])).rows[0];
  assert.equal(run.status, 'CANCELED');
  assert.equal(run.reserved_microcredits, 0n);
  assert.equal(run.charged_microcredits, 0n, 'a canceled run is not charged');
  fake.hold();
});

test('kill -9 of a worker holding remote calls loses none: another worker finishes them, each charged once', async () => {
  const ids = await createRemote(30, 'crash');
  await until('30 calls held', () => fake.open === 30, 60_000);
  worker.child.kill('SIGKILL');
  await until('the killed worker\'s calls to be dropped', () => fake.open === 0, 30_000);
  const second = await spawnRole('worker', workerEnv());
  workers.push(second);
  await until('the runs taken over and held again', () => fake.open === 30, 60_000, () => `open ${fake.open}; ${second.tail()}`);
  fake.release();
  await until('every run to complete', async () => (await completed(ids)) === 30, 120_000, seen);
  const runs = (await api.services.db.query(`SELECT id, attempts, reserved_microcredits FROM runs WHERE id = ANY($1)`, [ids])).rows;
  for (const r of runs) {
    assert.ok(r.attempts >= 2, `${r.id} was taken over (attempts ${r.attempts})`);
    assert.equal(r.reserved_microcredits, 0n);
  }
  const ledger = (await api.services.db.query(`SELECT run_id, string_agg(kind, ',' ORDER BY id) AS kinds FROM ledger_entries WHERE run_id = ANY($1) GROUP BY run_id`, [ids])).rows;
  assert.equal(ledger.length, 30);
  for (const l of ledger) assert.equal(l.kinds.split(',').filter((k: string) => k === 'capture').length, 1, `${l.run_id} captured once (${l.kinds})`);
  assert.equal(new Set(ledger.map((l) => l.kinds)).size, 1, `every run's ledger has the same shape: ${[...new Set(ledger.map((l) => l.kinds))].join(' | ')}`);
});
