import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { BIN } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { siblingEnv } from '../helpers/processes.js';

// Graceful stop of separate processes sharing one database with this API-only process.
let api: TestServer;
const children: ChildProcess[] = [];
before(async () => {
  api = await startTestServer({}, { role: 'api' });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await api.close();
});

function serve(role: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role, '--port', '0'], {
    env: { ...process.env, ...siblingEnv(api), LOG_LEVEL: 'info', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_WORKER_CONCURRENCY: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.on('close', () => reject(new Error(`exited before listening: ${out.slice(-1000)}`)));
  });
  listening.catch(() => {});
  return { child, exited, listening, output: () => out };
}

/** A real run of a few seconds (an 8 s 720p Ken Burns video), long enough to be caught RUNNING. */
async function mediumRun(key: string): Promise<string> {
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 30, g: 120, b: 90 } } }).png().toBuffer();
  const r = await api.request('POST', '/v1/nodes/ken_burns_video/run', {
    key, body: { input: { image_url: `data:image/png;base64,${png.toString('base64')}`, duration: 8, width: 1280, height: 720, fps: 30 } },
  });
  assert.equal(r.status, 202, r.text);
  return r.body.runId;
}

async function ledgerKinds(runId: string): Promise<string[]> {
  return (await api.services.db.query(`SELECT kind FROM ledger_entries WHERE run_id = $1 ORDER BY id`, [runId])).rows.map((x) => x.kind);
}
async function eventTypes(runId: string): Promise<string[]> {
  return (await api.services.db.query(`SELECT type FROM events WHERE run_id = $1 ORDER BY id`, [runId])).rows.map((x) => x.type);
}

test('SIGTERM past the grace period: the worker hands its run back at once and exits 0; another finishes it, charged once', async () => {
  const u = await api.user();
  const runId = await mediumRun(u.key);
  // A long lease: without the hand-back the run would sit for 60 s before anyone could take it over.
  const first = serve('worker', { ATELIER_SHUTDOWN_GRACE_MS: '200', ATELIER_RUN_LEASE_SECONDS: '60' });
  await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['RUNNING'], 120_000);
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0, first.output().slice(-2000));
  assert.match(first.output(), /run handed back to the queue/);

  const row = (await api.services.db.query(`SELECT status, lease_owner, lease_expires_at < now() AS lapsed, attempts FROM runs WHERE id = $1`, [runId])).rows[0];
  assert.deepEqual(row, { status: 'RUNNING', lease_owner: null, lapsed: true, attempts: 0 }, 'lease released, and a hand-back is not counted as a crash');
  const jobs = (await api.services.db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'run' AND state = 'created' AND data->>'runId' = $1`, [runId])).rows[0].n;
  assert.equal(jobs, 1, 'a job is waiting for the next worker');

  const second = serve('worker', { ATELIER_RUN_LEASE_SECONDS: '60' });
  const done = await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 180_000);
  assert.equal(done.status, 'COMPLETED', done.error);
  assert.deepEqual(await ledgerKinds(runId), ['reserve', 'capture']);
  assert.deepEqual(await eventTypes(runId), ['run.started', 'run.completed']);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0, second.output().slice(-2000));
});

test('SIGTERM within the grace period: the worker finishes its run first, then exits 0', async () => {
  const u = await api.user();
  const runId = await mediumRun(u.key);
  const worker = serve('worker', { ATELIER_SHUTDOWN_GRACE_MS: '600000' });
  await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['RUNNING'], 120_000);
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.output().slice(-2000));
  // No other worker exists: if the run is done now, the stopping worker finished it.
  const row = (await api.services.db.query(`SELECT status, attempts FROM runs WHERE id = $1`, [runId])).rows[0];
  assert.deepEqual(row, { status: 'COMPLETED', attempts: 1 });
  assert.deepEqual(await ledgerKinds(runId), ['reserve', 'capture']);
});

test('SIGTERM to an API process ends its event streams (clients resume elsewhere) and exits 0', async () => {
  const u = await api.user();
  const r = await api.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'nobody runs this yet' } } });
  assert.equal(r.status, 202, r.text);
  const proc = serve('api', { ATELIER_SHUTDOWN_GRACE_MS: '600000' });
  const url = await proc.listening;
  const res = await fetch(`${url}/v1/nodes/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${u.key}` } });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /stream of run events/);
  proc.child.kill('SIGTERM');
  // The stream ends although the run never did (a long grace period would otherwise keep the process up).
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })();
  assert.equal(await Promise.race([ended, new Promise((r) => setTimeout(() => r(false), 30_000))]), true, 'the stream ended at shutdown');
  assert.equal(await proc.exited, 0, proc.output().slice(-2000));
  assert.match(proc.output(), /"msg":"stopped"/);
});
