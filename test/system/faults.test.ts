import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { BIN, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { Db } from '../../src/db/pool.js';
import { siblingEnv } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';

/**
 * Faults under load: 100 runs with webhooks go through an API process (this one), worker processes and
 * deliverer processes on one database while a worker and a deliverer are killed with SIGKILL and every
 * Atelier connection to the database is terminated twice. Afterwards nothing may be lost, doubled or
 * left open: every run completed once and was charged once, every event reached the receiver, every
 * process that was not killed still works (its LISTEN connection came back), and `atelier doctor` is clean.
 */

const RUNS = 100;
let api: TestServer;
let observer: Db; // the test's own connections, named so the terminations spare them
const children: Array<{ role: string; child: ChildProcess; stderr: () => string; started: () => boolean }> = [];

// A webhook receiver that answers after a short pause, so deliveries are in flight when a deliverer dies.
const received: Array<{ id: string; type: string; runId: string }> = [];
let receiver: http.Server;
let hookUrl: string;

before(async () => {
  api = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { role: 'api' });
  observer = new Db(api.databaseUrl, { max: 3, applicationName: 'faults-observer' });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body);
      received.push({ id: String(req.headers['webhook-id']), type: json.type, runId: json.runId });
      setTimeout(() => res.end('ok'), 50);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

after(async () => {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await observer.close();
  await api.close();
});

function spawnRole(role: 'worker' | 'deliverer') {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role], {
    env: {
      ...process.env, ...siblingEnv(api), LOG_LEVEL: 'info', ATELIER_ALLOW_PRIVATE_URLS: '1',
      ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_WORKER_CONCURRENCY: '2',
      ATELIER_WEBHOOK_TIMEOUT_MS: '1000', ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let started = false;
  const keep = (d: Buffer) => {
    out = (out + d).slice(-4000);
    if (!started && out.includes(`started (role ${role})`)) started = true;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const entry = { role, child, stderr: () => out, started: () => started };
  children.push(entry);
  return entry;
}

/**
 * Faults are for running processes: one still starting up (migrations, queue set-up) exits 1 when its
 * connection is cut, for its supervisor to restart, which is not what this test is about.
 */
async function allStarted() {
  await until('every process to finish starting', async () => children.every((c) => c.started() || c.child.exitCode !== null || c.child.signalCode !== null), 120_000, deadProcesses);
}

async function killHard(c: { child: ChildProcess }) {
  const exited = new Promise<void>((resolve) => c.child.once('close', () => resolve()));
  c.child.kill('SIGKILL');
  await exited;
}

/** Which processes died: that is usually why a wait timed out (the `explain` of helpers/poll.ts `until`). */
function deadProcesses(): string {
  return children.filter((c) => c.child.exitCode !== null).map((c) => `${c.role} ${c.child.pid} exited ${c.child.exitCode}: ${c.stderr().slice(-500)}`).join('; ');
}

/** Terminates every backend of an Atelier process on this test's database (not other databases on the server). */
async function terminateAtelierBackends(): Promise<number> {
  const r = await observer.query(`SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE datname = current_database() AND application_name LIKE 'atelier:%' AND pid <> pg_backend_pid()) t`);
  return r.rows[0].n;
}

/** Creates a run as a careful client does: an Idempotency-Key, and retries on 5xx or a dropped connection. */
async function createRun(key: string, idem: string, path: string, body: unknown): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await api.request('POST', path, { key, body, headers: { 'idempotency-key': idem } });
      if (r.status === 202) return r.body.runId;
      if (r.status < 500) throw new assert.AssertionError({ message: `create answered ${r.status}: ${r.text}` });
    } catch (err) {
      if (err instanceof assert.AssertionError) throw err;
    }
    assert.ok(attempt < 30, `create ${idem} kept failing`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const count = async (sql: string, values: unknown[] = []) => (await observer.query(sql, values)).rows[0].n as number;

test('kill -9 a worker and a deliverer and drop every database connection under load: nothing lost, nothing doubled', async (t) => {
  const users = await Promise.all([0, 1, 2, 3].map(() => api.user()));
  const workerA = spawnRole('worker');
  const delivererA = spawnRole('deliverer');

  // One run that takes a few seconds, so the first worker is surely holding it when it is killed.
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer();
  const slowId = await createRun(users[0]!.key, 'slow', '/v1/nodes/ken_burns_video/run', {
    input: { image_url: `data:image/png;base64,${png.toString('base64')}`, duration: 8, width: 1280, height: 720, fps: 30 },
    webhook: { url: hookUrl },
  });

  // 100 cheap runs, created four at a time while the faults happen.
  let created = 0;
  const runIds: string[] = [slowId];
  const creating = (async () => {
    let next = 0;
    await Promise.all([0, 1, 2, 3].map(async () => {
      while (next < RUNS) {
        const i = next++;
        const u = users[i % users.length]!;
        runIds.push(await createRun(u.key, `fault-${i}`, '/v1/nodes/word_count/run', { input: { text: `run number ${i} of the fault test` }, webhook: { url: hookUrl } }));
        created++;
        await new Promise((r) => setTimeout(r, 40));
      }
    }));
  })();

  await allStarted();
  await until('the slow run to start on worker A', async () => (await observer.query(`SELECT status FROM runs WHERE id = $1`, [slowId])).rows[0].status === 'RUNNING', 120_000, deadProcesses);
  await killHard(workerA);
  spawnRole('worker');
  spawnRole('worker');

  await until('40 runs created', async () => created >= 40, 120_000, deadProcesses);
  await allStarted();
  const firstCut = await terminateAtelierBackends();
  t.diagnostic(`terminated ${firstCut} backends`);
  assert.ok(firstCut > 0, 'there were Atelier connections to terminate');

  await until('30 webhook deliveries', async () => received.length >= 30, 120_000, deadProcesses);
  const inFlight = await count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE claimed_by IS NOT NULL`);
  await killHard(delivererA);
  t.diagnostic(`deliverer killed with ${inFlight} deliveries claimed`);
  spawnRole('deliverer');

  await until('80 runs created', async () => created >= 80, 120_000, deadProcesses);
  await allStarted();
  const secondCut = await terminateAtelierBackends();
  t.diagnostic(`terminated ${secondCut} backends`);
  await creating;
  assert.equal(new Set(runIds).size, RUNS + 1);

  await until('every run to end', async () => (await count(`SELECT count(*)::int AS n FROM runs WHERE status IN ('QUEUED', 'RUNNING')`)) === 0, 180_000, deadProcesses);
  await until('every delivery to be delivered', async () => (await count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`)) === 0, 120_000, deadProcesses);

  // Every run completed exactly once and was charged exactly once.
  const runs = (await observer.query(`SELECT id, status, attempts, estimated_microcredits, charged_microcredits, reserved_microcredits FROM runs`)).rows;
  assert.equal(runs.length, RUNS + 1);
  assert.deepEqual(runs.filter((r) => r.status !== 'COMPLETED').map((r) => r.id), []);
  for (const r of runs) {
    assert.equal(r.charged_microcredits, r.estimated_microcredits, `${r.id} charged its estimate`);
    assert.equal(r.reserved_microcredits, 0n);
  }
  const ledger = (await observer.query(`SELECT run_id, string_agg(kind, ',' ORDER BY id) AS kinds FROM ledger_entries WHERE run_id IS NOT NULL GROUP BY run_id`)).rows;
  assert.equal(ledger.length, RUNS + 1);
  assert.deepEqual(ledger.filter((l) => l.kinds !== 'reserve,capture'), [], 'each run reserved once and captured once');
  const events = (await observer.query(`SELECT run_id, string_agg(type, ',' ORDER BY id) AS types FROM events GROUP BY run_id`)).rows;
  assert.deepEqual(events.filter((e) => e.types !== 'run.started,run.completed'), [], 'each run started and completed once');
  const slow = runs.find((r) => r.id === slowId)!;
  assert.ok(slow.attempts >= 2, `the run worker A held was taken over (attempts ${slow.attempts})`);
  t.diagnostic(`${runs.filter((r) => r.attempts > 1).length} runs were taken over after a kill`);

  // Balances: what each account was granted, less exactly what its runs were charged.
  for (const u of users) {
    const charged = (await observer.query(`SELECT COALESCE(sum(charged_microcredits), 0)::bigint AS c FROM runs WHERE account_id = $1`, [u.accountId])).rows[0].c;
    const b = (await api.request('GET', '/v1/credits/balance', { key: u.key })).body;
    assert.equal(BigInt(b.availableBalance), 10_000_000n - charged);
    assert.equal(b.reservedMicrocredits, 0);
  }

  // Every event reached the receiver at least once (duplicates only share a webhook-id), nothing unknown arrived.
  const expected = new Set((await observer.query(`SELECT event_id FROM webhook_deliveries`)).rows.map((r) => r.event_id as string));
  assert.equal(expected.size, 2 * (RUNS + 1));
  const got = new Set(received.map((r) => r.id));
  assert.deepEqual([...expected].filter((id) => !got.has(id)), [], 'no event lost');
  assert.deepEqual([...got].filter((id) => !expected.has(id)), [], 'no event invented');
  t.diagnostic(`${received.length} deliveries for ${expected.size} events (${received.length - expected.size} repeated after the deliverer was killed)`);
  for (const id of runIds) {
    const types = new Set(received.filter((r) => r.runId === id).map((r) => r.type));
    assert.deepEqual([...types].sort(), ['run.completed', 'run.started'], `${id} events`);
  }

  // Every process that was not killed is alive and listening again after its connections were cut.
  const alive = children.filter((c) => c.child !== workerA.child && c.child !== delivererA.child);
  for (const c of alive) assert.equal(c.child.exitCode, null, `${c.role} ${c.child.pid} exited: ${c.stderr()}`);
  for (const pid of [process.pid, ...alive.map((c) => c.child.pid)]) {
    await until(`process ${pid} to LISTEN again`, async () => (await count(`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`, [`atelier:${pid}:listen`])) === 1, 30_000, deadProcesses);
  }

  const doctor = await runCli(['doctor', '--json', '--stuck-after', '0'], { DATABASE_URL: api.databaseUrl, DATA_DIR: api.dataDir });
  assert.deepEqual(JSON.parse(doctor.stdout).findings, []);
  assert.equal(doctor.code, 0, doctor.stderr);
});
