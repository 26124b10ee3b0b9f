import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/processes.js';

// The default set-up a new user gets: no DATABASE_URL, the embedded PostgreSQL in DATA_DIR.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-embedded-'));
fs.chmodSync(dataDir, 0o755);
const baseEnv: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'info' };
delete baseEnv.DATABASE_URL;

interface Served { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }
const started: ChildProcess[] = [];

async function serve(): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...baseEnv, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!out.includes('listening on')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

function postmasterPid(): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

function grepTree(dir: string, needle: Buffer): string[] {
  const hits: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) hits.push(...grepTree(p, needle));
    else if (e.isFile()) {
      try {
        if (fs.readFileSync(p).includes(needle)) hits.push(p);
      } catch { /* unreadable socket or similar */ }
    }
  }
  return hits;
}

after(async () => {
  // Whatever happened, leave no server behind.
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  const pid = postmasterPid();
  if (pid) try { process.kill(pid, 'SIGINT'); } catch { /* gone */ }
  await new Promise((r) => setTimeout(r, 500));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded PostgreSQL in DATA_DIR', () => {
  let key = '';

  test('serve starts it, logs where data lives and the first-key hint, and the CLI shares it', async () => {
    const s = await serve();
    assert.match(s.output(), new RegExp(`data lives in embedded PostgreSQL in ${dataDir.replace(/[/.]/g, '\\$&')}`));
    assert.match(s.output(), /npx atelier quickstart --email/);
    const health = await fetch(`${s.url}/healthz`);
    assert.deepEqual(await health.json(), { status: 'ok' });

    const q = await runCli(['quickstart', '--email', 'first@example.com', '--json'], baseEnv);
    assert.equal(q.code, 0, q.stderr);
    key = JSON.parse(q.stdout).key;
    const res = await fetch(`${s.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    // The CLI must not have stopped the server's database when it finished.
    assert.equal((await fetch(`${s.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } })).status, 200);

    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
    assert.equal(postmasterPid(), undefined, 'a clean stop stops the embedded server');
    assert.ok(!s.output().includes(key), 'the key never appears in the log');
  });

  test('the CLI works with the server stopped, starting and stopping the database itself', async () => {
    const r = await runCli(['keys', 'list', '--email', 'first@example.com', '--json'], baseEnv);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).length, 1);
    assert.equal(postmasterPid(), undefined);
  });

  test('after kill -9 of the service, the next start adopts the running database, and its clean stop stops it', async () => {
    const s1 = await serve();
    s1.child.kill('SIGKILL');
    await s1.exited;
    const left = postmasterPid();
    assert.ok(left, 'the killed service could not stop its database');
    const s2 = await serve();
    const res = await fetch(`${s2.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).availableBalance, 10_000_000);
    s2.child.kill('SIGTERM');
    assert.equal(await s2.exited, 0);
    // Issue 26: the database a crash left behind was adopted as "not ours" and never stopped again.
    assert.equal(postmasterPid(), undefined, 'the clean stop stopped the database the crash left running');
  });

  test('no file in the data folder holds the full key', async () => {
    assert.ok(key.length > 0);
    assert.deepEqual(grepTree(dataDir, Buffer.from(key)), []);
    assert.deepEqual(grepTree(dataDir, Buffer.from(key.slice(3))), []);
  });
});

test('as a normal (non-root) user the embedded server initialises and runs too', async (t) => {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasRunuser = fs.existsSync('/usr/sbin/runuser') || fs.existsSync('/sbin/runuser');
  if (!isRoot || !hasRunuser) return t.skip('needs root and runuser to switch to the nobody user (as a normal user every test above already covers it)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-nonroot-'));
  fs.chmodSync(dir, 0o777);
  try {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('runuser', ['-u', 'nobody', '--', 'env', `HOME=${dir}`, `DATA_DIR=${dir}/data`, `PATH=${process.env.PATH}`, process.execPath, BIN, 'quickstart', '--email', 'nobody@example.com', '--json'], { encoding: 'utf8', timeout: 120_000 });
    if (/EACCES|permission denied/i.test(r.stderr) && !fs.existsSync(`${dir}/data/pg`)) return t.skip(`the checkout is not readable by nobody: ${r.stderr.split('\n')[0]}`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).key, /^gx_/);
    assert.ok(fs.existsSync(`${dir}/data/pg/PG_VERSION`));
    assert.ok(!fs.existsSync(`${dir}/data/pg/postmaster.pid`), 'the CLI stopped the server it started');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
