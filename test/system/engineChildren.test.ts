import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, processAlive, until, waitForStatus } from '../helpers/poll.js';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';

/**
 * Engines run in supervised child processes (src/execution/): a crash, a cancel or a runaway allocation
 * ends that run's child only. Driven by test-only engines (test/helpers/testEngines.ts).
 */
let srv: TestServer;
let dir: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-exec-'));
  srv = await startTestServer({ ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE, ATELIER_ENGINE_MEMORY_MB: '128' });
});
after(async () => {
  await srv.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const files = () => {
  n++;
  return { started_file: path.join(dir, `started-${n}`), release_file: path.join(dir, `release-${n}`) };
};

async function startSleeper(key: string, opts: { busy?: boolean; headers?: Record<string, string> } = {}) {
  const f = files();
  const r = await srv.request('POST', '/v1/nodes/test_sleep/run', { key, body: { input: { ...f, busy: opts.busy ?? false } }, headers: opts.headers });
  assert.equal(r.status, 202, r.text);
  await until('the engine to start', () => fs.existsSync(f.started_file) && fs.readFileSync(f.started_file, 'utf8') !== '');
  const pid = Number(fs.readFileSync(f.started_file, 'utf8'));
  return { runId: r.body.runId as string, pid, release: () => fs.writeFileSync(f.release_file, 'go') };
}

describe('engines run outside the service process', () => {
  test('the engine runs in a child process, not in the service', async () => {
    const u = await srv.user();
    const s = await startSleeper(u.key);
    assert.notEqual(s.pid, process.pid);
    s.release();
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${s.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.output.output, `released in ${s.pid}`);
  });

  test('a child that aborts fails its run (twice, then FAILED and refunded) and nothing else', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const neighbour = await startSleeper(u.key);
    const r = await srv.request('POST', '/v1/nodes/test_abort/run', { key: u.key, body: { input: {} } });
    assert.equal(r.status, 202, r.text);
    const failed = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.errorCode, 'ENGINE_CRASHED');
    assert.match(failed.error, /engine process exited: SIGABRT \(2 attempts\)/);
    assert.equal(failed.creditUsed, 0);
    // The service answers and the neighbour's run, in another child, goes on to complete.
    assert.equal((await srv.request('GET', '/healthz')).status, 200);
    assert.ok(processAlive(neighbour.pid));
    neighbour.release();
    assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${neighbour.runId}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    const after = await balance(srv, u.key);
    assert.equal(after.availableBalance, before.availableBalance - 1000, 'only the neighbour was charged');
    assert.equal(after.reservedMicrocredits, 0);
  });

  test('a crash is one failed attempt: the retry on a fresh child completes', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/test_abort/run', { key: u.key, body: { input: { once_file: path.join(dir, `once-${++n}`) } } });
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.output.output, 'survived');
  });

  test('cancel kills a busy child at once; the run is CANCELED and refunded; the next run completes', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const s = await startSleeper(u.key, { busy: true });
    const c = await srv.request('POST', `/v1/nodes/runs/${s.runId}/cancel`, { key: u.key });
    assert.equal(c.status, 200, c.text);
    await until('the busy child to be killed', () => !processAlive(s.pid), 30_000);
    assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${s.runId}`, ['CANCELED'])).status, 'CANCELED');
    assert.deepEqual(await balance(srv, u.key), before);
    const next = await startSleeper(u.key, { busy: true });
    assert.notEqual(next.pid, s.pid);
    next.release();
    assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${next.runId}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  });

  test('a Cancel-After deadline kills the busy child too', async () => {
    const u = await srv.user();
    const s = await startSleeper(u.key, { busy: true, headers: { 'cancel-after': '2s' } });
    await until('the child to be killed at the deadline', () => !processAlive(s.pid), 60_000);
    assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${s.runId}`, ['CANCELED'])).status, 'CANCELED');
    assert.equal((await balance(srv, u.key)).reservedMicrocredits, 0);
  });

  test('an engine that allocates without bound dies at its memory limit; the service does not grow', async () => {
    const u = await srv.user();
    const rss = process.memoryUsage().rss;
    const r = await srv.request('POST', '/v1/nodes/test_allocate/run', { key: u.key, body: { input: {} } });
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.errorCode, 'ENGINE_CRASHED');
    assert.match(done.error, /engine process exited/);
    assert.ok(process.memoryUsage().rss - rss < 200 * 1024 * 1024, 'the service process stayed small');
    assert.equal((await srv.request('GET', '/healthz')).status, 200);
  });
});
