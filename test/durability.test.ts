import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './helpers/cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { balance, waitForStatus } from './helpers/poll.js';
import { slowRunBody } from './helpers/slowRun.js';

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
    env: { ...process.env, DATABASE_URL: api.databaseUrl, DATA_DIR: api.dataDir, LOG_LEVEL: 'silent', ATELIER_RUN_LEASE_SECONDS: '2', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_WORKER_CONCURRENCY: '1' },
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
