import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { killMarked, processesMarked, serveAsGroupLeader, type GroupLeader } from '../helpers/groups.js';
import { processAlive, until } from '../helpers/poll.js';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';

/**
 * Issue 26, finding 4 (durability suite): a signal to the service's whole process group — what Ctrl-C in a
 * terminal and systemd's default KillMode=control-group send — at any moment (during start-up, idle just
 * after start, idle with warm engine children, busy) stops it cleanly: exit 0, runs handed back, the embedded
 * PostgreSQL stopped, nothing it started left running. And a PostgreSQL a crash left running is stopped by
 * the next clean stop. The service runs as `atelier serve` leading its own group, on the embedded
 * PostgreSQL in a temporary DATA_DIR.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pgroup-'));
fs.chmodSync(dataDir, 0o755);
const env: Record<string, string> = {
  DATA_DIR: dataDir, DATABASE_URL: '', ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE,
  ATELIER_SHUTDOWN_GRACE_MS: '300', ATELIER_RUN_LEASE_SECONDS: '30', ATELIER_SWEEP_INTERVAL_MS: '200',
};
const cliEnv = { ...env, DATABASE_URL: '' };
const served: GroupLeader[] = [];
let key = '';

/** Alive and not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

function postmasterPid(): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 && running(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function serve(): Promise<GroupLeader> {
  const s = await serveAsGroupLeader(env);
  served.push(s);
  return s;
}

/** The stop was clean: exit 0 with the "stopped" line, no crash text, nothing left running, PostgreSQL stopped. */
async function assertCleanStop(s: GroupLeader): Promise<void> {
  const { code, signal } = await s.exited;
  const out = s.output();
  assert.equal(signal, null, `ended by ${signal}:\n${out.slice(-3000)}`);
  assert.equal(code, 0, out.slice(-3000));
  assert.match(out, /"msg":"stopped"/);
  assert.doesNotMatch(out, /Unhandled 'error' event|exited unexpectedly|terminate called/);
  await until('every process the service started to end', () => processesMarked(s.mark).length === 0, 30_000)
    .catch(() => assert.fail(`left running: ${JSON.stringify(processesMarked(s.mark))}`));
  assert.equal(postmasterPid(), undefined, 'the embedded PostgreSQL was stopped');
}

async function request(s: GroupLeader, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(s.url + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

async function runStatus(s: GroupLeader, runId: string, statuses: string[]): Promise<any> {
  let last: any;
  await until(`run ${runId} to reach ${statuses.join('/')}`, async () => {
    last = (await request(s, 'GET', `/v1/nodes/runs/${runId}`)).body;
    return statuses.includes(last?.status);
  }, 120_000);
  return last;
}

before(async () => {
  // Initialise the cluster once (about 20 s) and make the first key, so every case below starts quickly.
  const q = await runCli(['quickstart', '--email', 'groups@example.com', '--json'], cliEnv);
  assert.equal(q.code, 0, q.stderr);
  // A key whose rate limit the cases below (polling, bursts of creates) never reach.
  const k = await runCli(['keys', 'create', '--email', 'groups@example.com', '--label', 'signals', '--per-minute', '10000', '--per-day', '100000', '--json'], cliEnv);
  assert.equal(k.code, 0, k.stderr);
  key = JSON.parse(k.stdout).key;
  assert.ok(q.stdout.length > 0);
  assert.equal(postmasterPid(), undefined, 'the CLI stopped the database it started');
});

after(() => {
  for (const s of served) {
    s.signalGroup('SIGKILL');
    killMarked(s.mark);
  }
  const pid = postmasterPid();
  if (pid) try { process.kill(pid, 'SIGINT'); } catch { /* gone */ }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('SIGINT to the group during start-up, as soon as the database runs: the start completes, then a clean stop', async () => {
  const s = await serve();
  await until('the embedded PostgreSQL to start', () => postmasterPid() !== undefined || s.child.exitCode !== null, 90_000);
  s.signalGroup('SIGINT');
  await assertCleanStop(s);
});

test('SIGINT to the group just after start (idle, the text child still starting): a clean stop', async () => {
  const s = await serve();
  await s.listening;
  s.signalGroup('SIGINT');
  await assertCleanStop(s);
});

test('SIGTERM to the group later, idle with warm engine children: a clean stop', async () => {
  const s = await serve();
  await s.listening;
  const r = await request(s, 'POST', '/v1/nodes/word_count/run', { input: { text: 'three little words' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((await runStatus(s, r.body.runId, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  s.signalGroup('SIGTERM');
  await assertCleanStop(s);
});

test('SIGTERM to the group while a run is busy: handed back, clean stop; after a restart the run completes, charged once', async () => {
  const files = { started_file: path.join(dataDir, 'busy-started'), release_file: path.join(dataDir, 'busy-release') };
  const s = await serve();
  await s.listening;
  const before = (await request(s, 'GET', '/v1/credits/balance')).body;
  const r = await request(s, 'POST', '/v1/nodes/test_sleep/run', { input: files });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await until('the engine to start', () => fs.existsSync(files.started_file) && fs.readFileSync(files.started_file, 'utf8') !== '', 90_000);
  const enginePid = Number(fs.readFileSync(files.started_file, 'utf8'));
  s.signalGroup('SIGTERM');
  await assertCleanStop(s);
  assert.match(s.output(), /run handed back to the queue/);
  assert.ok(!running(enginePid), 'the engine child ended with the service');

  fs.rmSync(files.started_file);
  const again = await serve();
  await again.listening;
  await until('the engine to start again', () => fs.existsSync(files.started_file) && fs.readFileSync(files.started_file, 'utf8') !== '', 90_000);
  fs.writeFileSync(files.release_file, 'go');
  const done = await runStatus(again, r.body.runId, ['COMPLETED', 'FAILED']);
  assert.equal(done.status, 'COMPLETED', done.error);
  assert.equal(done.creditUsed, r.body.estimatedCredits);
  const afterB = (await request(again, 'GET', '/v1/credits/balance')).body;
  assert.equal(afterB.availableBalance, before.availableBalance - r.body.estimatedCredits, 'charged exactly once');
  assert.equal(afterB.reservedMicrocredits, 0);
  again.child.kill('SIGINT');
  await assertCleanStop(again);
});

test('kill -9 of the service leaves its database running and no engine child; the next start uses it and its clean stop stops it', async () => {
  const s = await serve();
  await s.listening;
  const r = await request(s, 'POST', '/v1/nodes/word_count/run', { input: { text: 'warm the text child' } });
  assert.equal((await runStatus(s, r.body.runId, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  s.child.kill('SIGKILL');
  await s.exited;
  // Engine children exit when their channel to the service closes.
  await until('the engine children to exit', () => processesMarked(s.mark).every((p) => !/childEntry/.test(p.cmd)), 30_000);
  const left = postmasterPid();
  assert.ok(left, 'a killed service cannot stop its database');

  const next = await serve();
  await next.listening;
  assert.match(next.output(), /using the embedded PostgreSQL already running/);
  assert.equal((await request(next, 'GET', '/v1/credits/balance')).status, 200);
  next.signalGroup('SIGINT');
  await assertCleanStop(next);
  // (A process that just ended may linger a moment as a zombie until its adoptive parent reaps it.)
  await until('the database a crash left behind to be stopped by the next clean stop', () => !running(left), 30_000);
});

/** Seeded, so a failing moment reproduces (ATELIER_SIGNAL_SEED). */
function moments(seed: number, n: number): number[] {
  let x = seed >>> 0;
  const next = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, () => Math.floor(next() * 10_000));
}
const SEED = process.env.ATELIER_SIGNAL_SEED ? Number(process.env.ATELIER_SIGNAL_SEED) : 20261124;

for (const [i, ms] of moments(SEED, 2).entries()) {
  const signal: NodeJS.Signals = i % 2 ? 'SIGTERM' : 'SIGINT';
  test(`${signal} to the group ${ms} ms after it listens (seed ${SEED}), while runs are being created: a clean stop; every accepted run completes after a restart, charged once`, async () => {
    const s = await serve();
    const accepted: Array<{ runId: string; estimatedCredits: number }> = [];
    const odd: string[] = []; // answers other than accepted, or refused because the service is stopping
    let before: any;
    const creating = (async () => {
      await s.listening;
      before = (await request(s, 'GET', '/v1/credits/balance')).body;
      while (s.child.exitCode === null) {
        const r = await request(s, 'POST', '/v1/nodes/word_count/run', { input: { text: `run ${accepted.length}` } }).catch(() => undefined);
        if (r?.status === 202) accepted.push(r.body);
        else if (r === undefined) break;
        else if (r.status !== 503) odd.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
    })().catch(() => {});
    // (The moments during start-up are the first case's.)
    await s.listening;
    await new Promise((r) => setTimeout(r, ms));
    s.signalGroup(signal);
    await assertCleanStop(s);
    await creating;
    assert.deepEqual(odd, [], 'every create was accepted, or refused because the service was stopping');
    assert.ok(accepted.length > 0, 'runs were accepted before the signal');
    const again = await serve();
    await again.listening;
    let spent = 0;
    for (const run of accepted) {
      const done = await runStatus(again, run.runId, ['COMPLETED', 'FAILED', 'CANCELED']);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done).slice(0, 300));
      assert.equal(done.creditUsed, run.estimatedCredits);
      spent += run.estimatedCredits;
    }
    const afterB = (await request(again, 'GET', '/v1/credits/balance')).body;
    assert.equal(afterB.availableBalance, before.availableBalance - spent, `${accepted.length} runs, each charged once`);
    again.signalGroup('SIGINT');
    await assertCleanStop(again);
  });
}
