import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, processAlive, until, waitForStatus } from '../helpers/poll.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';
import { siblingEnv } from '../helpers/processes.js';

// An API-only process: runs it accepts stay QUEUED until a worker process appears.
// Runs use the test-only engine test_sleep (test/helpers/testEngines.ts): it writes its process id when it
// starts and finishes when told, so no test depends on how long a real encode takes on a busy machine.
let api: TestServer;
let dir: string;
const children: ChildProcess[] = [];
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-durability-'));
  api = await startTestServer({ ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE }, { role: 'api' });
});
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Waits until the engine wrote a process id other than `not` to `file`, and returns it. */
async function engineStarted(file: string, not?: number): Promise<number> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const pid = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0;
    if (pid && pid !== not) return pid;
    assert.ok(Date.now() < deadline, `the engine did not start (${file})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startWorker(): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: { ...process.env, ...siblingEnv(api), ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE, LOG_LEVEL: 'silent', ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_WORKER_CONCURRENCY: '1' },
    stdio: 'ignore',
  });
  children.push(child);
  return { child, exited: new Promise((resolve) => child.on('close', () => resolve())) };
}


test('a queued run cancels at once and is refunded', async () => {
  const u = await api.user();
  const before = await balance(api, u.key);
  const r = await api.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body: { subModelId: 'sfxr-jump', input: {} } });
  assert.equal(r.status, 202, r.text);
  assert.equal((await balance(api, u.key)).reservedMicrocredits, r.body.estimatedCredits);
  const c = await api.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
  assert.equal(c.body.status, 'CANCELED');
  assert.equal(c.body.startedAt, null);
  assert.deepEqual(await balance(api, u.key), before);
});

test('kill -9 of a worker mid-run: another worker finishes it, charged exactly once', async () => {
  const u = await api.user();
  const before = await balance(api, u.key);
  const files = { started_file: path.join(dir, 'run-started'), release_file: path.join(dir, 'run-release') };
  const r = await api.request('POST', '/v1/nodes/test_sleep/run', { key: u.key, body: { input: files } });
  assert.equal(r.status, 202, r.text);
  const runId = r.body.runId;

  const first = startWorker();
  const firstEngine = await engineStarted(files.started_file);
  first.child.kill('SIGKILL');
  await first.exited;
  // The dead worker's engine process does not run on without an owner.
  await until('the dead worker\'s engine child to exit', () => !processAlive(firstEngine));

  startWorker();
  await engineStarted(files.started_file, firstEngine);
  fs.writeFileSync(files.release_file, 'go');
  const done = await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(done.status, 'COMPLETED', done.error);
  assert.match(done.output.output, /^released in \d+$/);
  const row = (await api.services.db.query('SELECT attempts FROM runs WHERE id = $1', [runId])).rows[0];
  assert.ok(row.attempts >= 2, `attempts ${row.attempts}`);

  const entries = (await api.services.db.query(`SELECT kind FROM ledger_entries WHERE run_id = $1 ORDER BY id`, [runId])).rows.map((x) => x.kind);
  assert.deepEqual(entries, ['reserve', 'capture']);
  const afterB = await balance(api, u.key);
  assert.equal(afterB.availableBalance, before.availableBalance - r.body.estimatedCredits);
  assert.equal(afterB.reservedMicrocredits, 0);
  const events = (await api.services.db.query(`SELECT type FROM events WHERE run_id = $1 ORDER BY id`, [runId])).rows.map((x) => x.type);
  assert.deepEqual(events, ['run.started', 'run.completed']);
});

test('kill -9 mid-workflow: a new worker continues from the last completed node', async () => {
  // Only this test's workers may take the run.
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  const u = await api.user();
  const files = { started: path.join(dir, 'node-started'), release: path.join(dir, 'node-release') };
  const wf = await api.request('POST', '/v1/workflows', {
    key: u.key,
    body: {
      name: 'Resume me',
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'started', name: 'started', type: 'text' }, { id: 'release', name: 'release', type: 'text' }] } },
        { id: 'first', type: 'text_template', data: { template: '{{ text }}' } },
        { id: 'second', type: 'test_sleep', data: {} },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'started', target: 'first', targetHandle: 'in:text' },
        { source: 'first', sourceHandle: 'out:output', target: 'second', targetHandle: 'in:started_file' },
        { source: 'req', sourceHandle: 'release', target: 'second', targetHandle: 'in:release_file' },
        { source: 'second', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(wf.status, 201, wf.text);
  const r = await api.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.body.id, values: { req: { started: files.started, release: files.release } } } });
  assert.equal(r.status, 202, r.text);
  const worker = startWorker();
  const firstEngine = await engineStarted(files.started);
  worker.child.kill('SIGKILL');
  await worker.exited;
  startWorker();
  await engineStarted(files.started, firstEngine);
  fs.writeFileSync(files.release, 'go');
  const done = await waitForStatus(api, u.key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 180_000);
  assert.equal(done.status, 'COMPLETED', done.error);
  const attempts = (await api.services.db.query(`SELECT node_id, attempts FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [r.body.runId])).rows;
  assert.deepEqual(attempts.map((a) => [a.node_id, a.attempts >= 2]), [['first', false], ['second', true]], 'the completed node was not run again');
  const captures = (await api.services.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = $1 AND kind = 'capture'`, [r.body.runId])).rows[0].n;
  assert.equal(captures, 2, 'each node charged once');
  assert.equal(done.actualCredits, done.estimatedCredits);
});
