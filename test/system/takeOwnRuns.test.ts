import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { siblingEnv, spawnRole, type RoleProcess } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';
import { startGatedChat, type GatedChat } from '../helpers/providers/gatedChat.js';

/**
 * Issue 31: a process with both the API and worker roles (what `npm start` runs) takes a remote run it has
 * just created itself, when its remote lane has room, instead of waking a consumer loop to fetch the run's
 * job: the claim drops the job in its own statement. Shown here on a real `atelier serve --role all`: runs
 * within the lane's room leave no job behind, the runs past it go through the queue, and a kill -9 of the
 * process holding runs it took itself loses none (another worker takes them over, each charged once).
 */

const INFLIGHT = 3;

let fake: GatedChat;
let db: TestServer;
const procs: RoleProcess[] = [];
let key: string;

function env(): Record<string, string> {
  return {
    ...siblingEnv(db), LOG_LEVEL: 'info', ATELIER_ALLOW_PRIVATE_URLS: '1',
    OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test',
    ATELIER_REMOTE_INFLIGHT: String(INFLIGHT), ATELIER_ACCOUNT_CONCURRENCY: '0',
    ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200',
  };
}

before(async () => {
  fake = await startGatedChat();
  Object.assign(process.env, { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', ATELIER_ALLOW_PRIVATE_URLS: '1' });
  // The in-process server only holds the database and makes the account; it neither serves nor works runs.
  db = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { role: 'api' });
  key = (await db.user({ microcredits: 10n ** 12n, perMinute: 10_000 })).key;
});

after(async () => {
  fake.release();
  for (const p of procs) await p.stop();
  await db.close();
  await fake.close();
});

async function create(proc: RoleProcess, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${proc.url}/v1/nodes/gpt_5_4/run`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: { prompt: `${tag} ${i}` } }) });
    const text = await r.text();
    assert.equal(r.status, 202, text);
    ids.push(JSON.parse(text).runId);
  }
  return ids;
}

const jobsOf = async (ids: string[]) => (await db.services.db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'run' AND data->>'runId' = ANY($1)`, [ids])).rows[0].n as number;

async function capturedOnce(ids: string[]): Promise<void> {
  await until('every run to complete', async () => (await db.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status = 'COMPLETED'`, [ids])).rows[0].n === ids.length, 120_000,
    () => procs.map((p) => p.tail()).join('\n'));
  const ledger = (await db.services.db.query(`SELECT run_id, count(*) FILTER (WHERE kind = 'capture')::int AS captures FROM ledger_entries WHERE run_id = ANY($1) GROUP BY run_id`, [ids])).rows;
  assert.equal(ledger.length, ids.length);
  for (const l of ledger) assert.equal(l.captures, 1, `${l.run_id} captured once`);
  const held = (await db.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND reserved_microcredits <> 0`, [ids])).rows[0].n;
  assert.equal(held, 0, 'no hold left');
}

/** A fresh `--role all` process, the fake holding calls, and INFLIGHT runs created through it that it took itself (their jobs dropped). */
async function ownRuns(tag: string): Promise<{ all: RoleProcess; ids: string[] }> {
  const all = await spawnRole('all', env(), { readyBy: 'http' });
  procs.push(all);
  fake.hold();
  const ids = await create(all, INFLIGHT, tag);
  await until(`${INFLIGHT} calls held`, () => fake.open === INFLIGHT, 60_000, () => all.tail());
  assert.equal(await jobsOf(ids), 0, 'the claims dropped the jobs of the runs taken at creation');
  return { all, ids };
}

test('runs within the remote lane\'s room are taken by the process that created them, their jobs dropped; the rest go through the queue', async () => {
  const { all, ids: own } = await ownRuns('own');
  const queued = await create(all, 2, 'queued');
  // The lane is full: these were queued as usual (a consumer loop claims them; their calls wait for the lane).
  await until('the queued runs claimed', async () => (await db.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status = 'RUNNING'`, [queued])).rows[0].n === 2, 60_000);
  assert.equal(await jobsOf(queued), 2, 'the runs past the lane\'s room went through the queue');
  assert.equal(fake.open, INFLIGHT, 'the lane\'s bound held');
  fake.release();
  await capturedOnce([...own, ...queued]);
  await all.stop();
});

test('kill -9 of a process holding runs it took itself loses none: another worker finishes them, each charged once', async () => {
  // No job left to fetch (ownRuns checks it): only the lease can bring these runs back.
  const { all, ids } = await ownRuns('crash');
  all.child.kill('SIGKILL');
  await until('the killed process\'s calls to be dropped', () => fake.open === 0, 30_000);
  const worker = await spawnRole('worker', env());
  procs.push(worker);
  await until('the runs taken over and held again', () => fake.open === INFLIGHT, 60_000, () => worker.tail());
  fake.release();
  await capturedOnce(ids);
  const attempts = (await db.services.db.query(`SELECT min(attempts)::int AS n FROM runs WHERE id = ANY($1)`, [ids])).rows[0].n;
  assert.ok(attempts >= 2, `every run was taken over (attempts ≥ ${attempts})`);
});
