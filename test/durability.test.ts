import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './helpers/cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { balance, waitForStatus } from './helpers/poll.js';
import { slowRunBody } from './helpers/slowRun.js';
import { knownBlobEnv } from './helpers/s3.js';

// An API-only process: runs it accepts stay QUEUED until a worker process appears.
let api: TestServer;
const children: ChildProcess[] = [];
before(async () => {
  api = await startTestServer({}, { role: 'api' });
});
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await api.close();
});

function startWorker(): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: { ...process.env, ...knownBlobEnv(api.dataDir), DATABASE_URL: api.databaseUrl, DATA_DIR: api.dataDir, LOG_LEVEL: 'silent', ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_WORKER_CONCURRENCY: '1' },
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
  const slow = await slowRunBody();
  const r = await api.request('POST', slow.path, { key: u.key, body: slow.body });
  assert.equal(r.status, 202, r.text);
  const runId = r.body.runId;

  const first = startWorker();
  await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['RUNNING'], 60_000);
  first.child.kill('SIGKILL');
  await first.exited;

  startWorker();
  const done = await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(done.status, 'COMPLETED', done.error);
  assert.equal(done.files[0].contentType, 'video/mp4');
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
  const slow = await slowRunBody();
  const wf = await api.request('POST', '/v1/workflows', {
    key: u.key,
    body: {
      name: 'Resume me',
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'image', name: 'image', type: 'image' }] } },
        { id: 'first', type: 'resize_image', data: { width: 320 } },
        { id: 'second', type: 'ken_burns_video', data: { duration: 60, width: 1920, height: 1080, fps: 60 } },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'image', target: 'first', targetHandle: 'in:image_url' },
        { source: 'first', sourceHandle: 'out:result', target: 'second', targetHandle: 'in:image_url' },
        { source: 'second', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(wf.status, 201, wf.text);
  const r = await api.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.body.id, values: { req: { image: slow.body.input.image_url } } } });
  assert.equal(r.status, 202, r.text);
  const worker = startWorker();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = (await api.request('GET', `/v1/runs/${r.body.runId}`, { key: u.key })).body;
    if (run.nodeRuns[1].status === 'RUNNING') break;
    assert.ok(Date.now() < deadline, 'second node never started');
    await new Promise((res) => setTimeout(res, 50));
  }
  worker.child.kill('SIGKILL');
  await worker.exited;
  startWorker();
  const done = await waitForStatus(api, u.key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 180_000);
  assert.equal(done.status, 'COMPLETED', done.error);
  const attempts = (await api.services.db.query(`SELECT node_id, attempts FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [r.body.runId])).rows;
  assert.deepEqual(attempts.map((a) => [a.node_id, a.attempts >= 2]), [['first', false], ['second', true]], 'the completed node was not run again');
  const captures = (await api.services.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = $1 AND kind = 'capture'`, [r.body.runId])).rows[0].n;
  assert.equal(captures, 2, 'each node charged once');
  assert.equal(done.actualCredits, done.estimatedCredits);
});
