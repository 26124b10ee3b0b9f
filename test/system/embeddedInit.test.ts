import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, runCli } from '../helpers/cli.js';
import { acquireInitLock } from '../../src/db/embedded.js';
import { freePort } from '../helpers/processes.js';

// First-hour races and permissions of the embedded PostgreSQL (issue 16, item 16).

const dirs: string[] = [];
const children: ChildProcess[] = [];
function tmpDir(prefix: string, mode = 0o755): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(d, mode);
  dirs.push(d);
  return d;
}
function envFor(dataDir: string): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  delete env.DATABASE_URL;
  return env;
}
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) {
    try {
      const pid = Number(fs.readFileSync(path.join(d, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid) process.kill(pid, 'SIGINT');
    } catch { /* none running */ }
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('the init lock admits one holder at a time and takes over the lock of a process that died', async () => {
  const dir = tmpDir('atelier-lock-');
  const order: string[] = [];
  const release1 = await acquireInitLock(dir);
  const second = acquireInitLock(dir).then((release) => {
    order.push('second acquired');
    release();
  });
  await new Promise((r) => setTimeout(r, 300));
  order.push('first releases');
  release1();
  await second;
  assert.deepEqual(order, ['first releases', 'second acquired']);
  // A lock left by a process that no longer exists does not block the next start.
  const dead = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => dead.on('close', r));
  fs.writeFileSync(path.join(dir, '.embedded-init.lock'), String(dead.pid));
  const release3 = await acquireInitLock(dir, () => {}, 5_000);
  release3();
  assert.ok(!fs.existsSync(path.join(dir, '.embedded-init.lock')));
});

test('`serve` and `quickstart` started together on a fresh DATA_DIR: one initialises, the other waits, both work', async () => {
  const dataDir = tmpDir('atelier-race-');
  const env = envFor(dataDir);
  const port = await freePort();
  const serve = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(serve);
  let out = '';
  serve.stdout!.on('data', (d) => (out += d));
  serve.stderr!.on('data', (d) => (out += d));
  const q = await runCli(['quickstart', '--email', 'race@example.com', '--json'], { ...env, LOG_LEVEL: 'silent' });
  assert.equal(q.code, 0, `quickstart failed: ${q.stderr}\nserve said: ${out}`);
  const key = JSON.parse(q.stdout).key as string;
  const deadline = Date.now() + 120_000;
  while (!out.includes('listening on')) {
    assert.equal(serve.exitCode, null, `serve exited: ${out}`);
    assert.ok(Date.now() < deadline, `serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const res = await fetch(`http://127.0.0.1:${port}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  assert.doesNotMatch(out, /exists but is not empty/);
  // Whichever of the two initialised said so (the server in its log, the CLI on stderr), and only one did.
  const said = (out + q.stderr).match(/first start: initialising the embedded PostgreSQL database/g) ?? [];
  assert.equal(said.length, 1, `serve: ${out}\nquickstart: ${q.stderr}`);
  // The lock is gone.
  assert.ok(!fs.existsSync(path.join(dataDir, '.embedded-init.lock')));
  serve.kill('SIGTERM');
  await new Promise((r) => serve.on('close', r));
});

test('as root, a DATA_DIR the postgres user cannot enter is refused with the folder and the fix', async (t) => {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) return t.skip('only root runs PostgreSQL as another user');
  try {
    (await import('node:child_process')).execFileSync('id', ['-u', 'postgres']);
  } catch {
    return t.skip('no postgres user yet (the first embedded start creates it)');
  }
  const locked = tmpDir('atelier-0700-', 0o700); // what `mktemp -d` makes
  const r = await runCli(['keys', 'list', '--email', 'x@example.com'], { ...envFor(path.join(locked, 'data')) });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, new RegExp(`cannot enter ${locked.replace(/[/.]/g, '\\$&')}`));
  assert.match(r.stderr, /chmod o\+x/);
  assert.doesNotMatch(r.stderr, /initdb|Permission denied/);
});
