import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase } from '../helpers/db.js';
import { killMarked, processesMarked, serveAsGroupLeader, type GroupLeader } from '../helpers/groups.js';
import { until } from '../helpers/poll.js';

/**
 * Issue 26, finding 8: the start-up model check ran engines inside the service process (1.8 GB with
 * onnxruntime loaded into it), and a SIGINT during the background-removal check aborted the process
 * ("terminate called after throwing an instance of 'Napi::Error'"). The check now runs in engine
 * children: the service process never maps onnxruntime, and a signal during the check is a clean stop.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
const served: GroupLeader[] = [];
before(async () => {
  db = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-check-'));
});
after(async () => {
  for (const s of served) {
    s.signalGroup('SIGKILL');
    killMarked(s.mark);
  }
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const mapsOnnx = (pid: number) => {
  try {
    return /onnxruntime/.test(fs.readFileSync(`/proc/${pid}/maps`, 'utf8'));
  } catch {
    return false;
  }
};

async function serveWithCheck(): Promise<GroupLeader> {
  const s = await serveAsGroupLeader({ DATABASE_URL: db.url, DATA_DIR: dataDir, ATELIER_MODEL_SMOKE_AT_START: 'remove_background' }, ['--role', 'worker']);
  served.push(s);
  await until('the worker to start', () => /"msg":"started \(role worker\)"/.test(s.output()) || s.child.exitCode !== null, 90_000);
  return s;
}

test('after the start-up check of remove_background, the service process has not loaded onnxruntime', async (t) => {
  const s = await serveWithCheck();
  await until('the model check to finish', () => /model check: /.test(s.output()), 300_000);
  if (/model check: all 0 /.test(s.output())) return t.skip('remove_background is not available on this machine');
  assert.match(s.output(), /model check: all 1 available local models ran their smoke input/);
  assert.equal(mapsOnnx(s.pid), false, 'onnxruntime is mapped into the service process');
  s.child.kill('SIGINT');
  assert.equal((await s.exited).code, 0, s.output().slice(-2000));
});

test('SIGINT to the group while the background-removal check runs: a clean stop, nothing left', async (t) => {
  const s = await serveWithCheck();
  // The check is under way once an engine child of this service has onnxruntime loaded.
  await until('the check to load onnxruntime in an engine child', () => /model check: /.test(s.output()) || processesMarked(s.mark).some((p) => p.pid !== s.pid && mapsOnnx(p.pid)), 300_000);
  if (/model check: all 0 /.test(s.output())) return t.skip('remove_background is not available on this machine');
  s.signalGroup('SIGINT');
  const { code, signal } = await s.exited;
  assert.equal(signal, null, s.output().slice(-2000));
  assert.equal(code, 0, s.output().slice(-2000));
  assert.doesNotMatch(s.output(), /terminate called|Napi::Error/);
  assert.match(s.output(), /"msg":"stopped"/);
  await until('every process the service started to end', () => processesMarked(s.mark).length === 0, 30_000);
});
