import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { compiledState } from '../../scripts/build.mjs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until, waitForStatus } from '../helpers/poll.js';
import { freePort } from '../helpers/processes.js';
import { knownBlobEnv } from '../helpers/s3.js';

// Issue 30: stops the way operators stop services. systemd's KillMode=control-group (the unit in
// docs/deploy.md: SIGTERM to every process of the unit at once, SIGKILL after TimeoutStopSec), and a
// Kubernetes-style drain (readiness fails first, then in-flight work is handed back). The container's
// stop (SIGTERM to PID 1, SIGKILL after the grace period) is test/system/container.test.ts.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let api: TestServer;
before(async () => {
  api = await startTestServer({}, { role: 'api' });
});
after(async () => {
  await api.close();
});

/** The deploy guide's systemd unit, as key → value. */
function deployUnit(): Record<string, string> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const block = /# \/etc\/systemd\/system\/atelier@\.service[^\n]*\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'docs/deploy.md has the atelier@.service unit');
  return Object.fromEntries(block.split('\n').filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** Every process below `pid` (children in process groups of their own included), from /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const below = (p: number): boolean => {
    for (let q = parent.get(p); q !== undefined && q > 1; q = parent.get(q)) if (q === pid) return true;
    return false;
  };
  return [...parent.keys()].filter(below);
}

const cmdline = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

function serve(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/atelier.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...knownBlobEnv(api.dataDir), DATABASE_URL: api.databaseUrl, DATA_DIR: api.dataDir, LOG_LEVEL: 'info', ATELIER_MODEL_SMOKE_AT_START: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => out };
}

async function mediumRun(key: string): Promise<string> {
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 30, g: 120, b: 90 } } }).png().toBuffer();
  const r = await api.request('POST', '/v1/nodes/ken_burns_video/run', {
    key, body: { input: { image_url: `data:image/png;base64,${png.toString('base64')}`, duration: 8, width: 1280, height: 720, fps: 30 } },
  });
  assert.equal(r.status, 202, r.text);
  return r.body.runId;
}

const ledgerKinds = async (runId: string) => (await api.services.db.query(`SELECT kind FROM ledger_entries WHERE run_id = $1 ORDER BY id`, [runId])).rows.map((x) => x.kind);

test('systemd KillMode=control-group: SIGTERM to every process of the unit at once while a run is busy; a clean stop well inside TimeoutStopSec, the run finished by the next worker, charged once', async (t) => {
  const unit = deployUnit();
  assert.equal(unit.KillMode, 'control-group');
  assert.equal(unit.KillSignal, 'SIGTERM');
  const timeoutStopMs = Number(unit.TimeoutStopSec) * 1000;
  const exec = unit.ExecStart!.split(' ');
  assert.deepEqual(exec.slice(1, 3), ['bin/atelier.mjs', 'serve']);
  // The unit's command, instance `worker`, with the compiled build when it is current (as after `npm ci`).
  const compiled = compiledState() === 'current';
  if (!compiled) t.diagnostic('build/ is not current (run `npm run build`): the unit runs the sources through tsx');
  const u = await api.user();
  const runId = await mediumRun(u.key);
  const worker = serve(exec.slice(2).map((a) => a.replace('%i', 'worker')), { ATELIER_DEV: compiled ? '0' : '1', ATELIER_SHUTDOWN_GRACE_MS: '500', ATELIER_RUN_LEASE_SECONDS: '60' });
  await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['RUNNING'], 180_000);
  const tree = descendants(worker.child.pid!);
  assert.ok(tree.length >= 1, 'an engine child runs the job');
  if (compiled) {
    // No transpiler anywhere in the unit's processes (issue 30): plain JavaScript from build/.
    for (const p of [worker.child.pid!, ...tree]) assert.doesNotMatch(cmdline(p), /esbuild|tsx/, cmdline(p));
    assert.ok(tree.some((p) => cmdline(p).includes('build/src/execution/childEntry.mjs')), tree.map(cmdline).join('\n'));
  }

  // systemd's stop: KillSignal to every process in the cgroup at once (children lead process groups of their own).
  const t0 = Date.now();
  for (const p of [worker.child.pid!, ...tree]) {
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const killer = setTimeout(() => {
    for (const p of [worker.child.pid!, ...descendants(worker.child.pid!)]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }, timeoutStopMs);
  const end = await worker.exited;
  clearTimeout(killer);
  assert.ok(Date.now() - t0 < timeoutStopMs, `stopped before TimeoutStopSec=${unit.TimeoutStopSec} (systemd would have sent SIGKILL)`);
  assert.deepEqual(end, { code: 0, signal: null }, worker.output().slice(-3000));
  assert.match(worker.output(), /"msg":"stopped"/);
  await until('every process of the unit to end', () => tree.every((p) => !fs.existsSync(`/proc/${p}`) || /\(.*\) Z/.test(fs.readFileSync(`/proc/${p}/stat`, 'utf8'))), 30_000);

  const next = serve(['serve', '--role', 'worker'], { ATELIER_RUN_LEASE_SECONDS: '60' });
  try {
    const done = await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 240_000);
    assert.equal(done.status, 'COMPLETED', done.error);
    assert.deepEqual(await ledgerKinds(runId), ['reserve', 'capture']);
  } finally {
    next.child.kill('SIGTERM');
    assert.equal((await next.exited).code, 0, next.output().slice(-2000));
  }
});

test('Kubernetes-style drain of an `all` process: /readyz fails first, then the in-flight run is handed back; the next process finishes it, charged once', async () => {
  const u = await api.user();
  const port = await freePort();
  const pod = serve(['serve', '--role', 'all'], { PORT: String(port), HOST: '127.0.0.1', ATELIER_SHUTDOWN_GRACE_MS: '3000', ATELIER_RUN_LEASE_SECONDS: '60' });
  const url = `http://127.0.0.1:${port}`;
  await until('the process to be ready', () => fetch(`${url}/readyz`).then((r) => r.ok, () => false), 180_000);
  const runId = await mediumRun(u.key);
  await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['RUNNING'], 180_000);

  // The kubelet's stop: SIGTERM to the container's main process; its readiness probe keeps polling.
  pod.child.kill('SIGTERM');
  let notReadyAt: number | undefined;
  let handedBackAt: number | undefined;
  await until('readiness to fail and the run to be handed back', async () => {
    const now = Date.now();
    if (notReadyAt === undefined) {
      const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false);
      if (!ok) notReadyAt = now;
    }
    if (handedBackAt === undefined) {
      const row = (await api.services.db.query(`SELECT status, lease_owner FROM runs WHERE id = $1`, [runId])).rows[0];
      if (row.status === 'COMPLETED' || row.lease_owner === null) handedBackAt = Date.now();
    }
    return notReadyAt !== undefined && handedBackAt !== undefined;
  }, 120_000);
  assert.ok(notReadyAt! <= handedBackAt!, 'readiness failed before the run was handed back');
  const end = await pod.exited;
  assert.equal(end.code, 0, pod.output().slice(-3000));
  const state = (await api.services.db.query(`SELECT status FROM runs WHERE id = $1`, [runId])).rows[0].status;
  if (state !== 'COMPLETED') assert.match(pod.output(), /run handed back to the queue/);

  const next = serve(['serve', '--role', 'worker'], {});
  try {
    const done = await waitForStatus(api, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 240_000);
    assert.equal(done.status, 'COMPLETED', done.error);
    assert.deepEqual(await ledgerKinds(runId), ['reserve', 'capture']);
  } finally {
    next.child.kill('SIGTERM');
    assert.equal((await next.exited).code, 0, next.output().slice(-2000));
  }
});
