import { pngSizedBytes } from '../helpers/uploadBytes.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/app/server.js';
import { WebClient } from '../web/webClient.js';

/**
 * Issue 26, finding 5, on a real small volume: free editor uploads filled a 600 MB volume shared with
 * PostgreSQL; the next upload answered 500, other tenants' runs failed with ENOSPC, PostgreSQL refused
 * connections and every request answered 503. Here DATA_DIR is a 512 MB tmpfs holding the embedded
 * PostgreSQL and the artifact folder, with 160 MB kept in reserve (ATELIER_DISK_RESERVE_MB): one tenant
 * uploads until refused, and the service stays whole for everyone, then recovers when files are deleted.
 */
const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-volume-'));
let skip: string | false = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512m,mode=0755', 'tmpfs', volume], { stdio: 'pipe' });
} catch (err) {
  skip = `cannot mount a tmpfs for DATA_DIR (${String((err as Error).message).split('\n')[0]}): the test needs root`;
}

let server: RunningServer | undefined;
let url = '';
before(async () => {
  if (skip) return;
  const config = loadConfig({
    DATA_DIR: volume, PORT: '0', LOG_LEVEL: 'silent', ATELIER_MODEL_SMOKE_AT_START: '0', ATELIER_SHUTDOWN_GRACE_MS: '0',
    ATELIER_DISK_RESERVE_MB: '160', ATELIER_UPLOADS_PER_MINUTE: '0', ATELIER_SWEEP_INTERVAL_MS: '500',
  });
  server = await startServer(config, 'all', { quiet: true });
  url = server.url!;
});
after(async () => {
  await server?.stop();
  if (!skip) execFileSync('umount', ['-l', volume]);
  fs.rmSync(volume, { recursive: true, force: true });
});

async function tenant(name: string) {
  const s = server!.services;
  const email = `${name}-${process.pid}@example.com`;
  const user = await s.accounts.createUser({ email, password: 'correct horse battery' });
  await s.credits.grant(user.actingAccountId, 10_000_000n);
  const key = (await s.keys.create(user, { label: 'test', perMinute: 10_000, perDay: 100_000 })).key;
  const web = new WebClient(url);
  assert.equal((await web.signIn(email, 'correct horse battery')).status, 303);
  const csrf = await web.csrf('/runs');
  const upload = async (bytes: number) => {
    const res = await fetch(`${url}/editor/files`, {
      method: 'POST', body: new Uint8Array(pngSizedBytes(bytes)),
      headers: { cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-csrf-token': csrf, origin: url, accept: 'application/json', 'content-type': 'image/png' },
    });
    return { status: res.status, body: await res.json() as any };
  };
  const api = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(url + pathname, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };
  return { accountId: user.actingAccountId, key, upload, api };
}

async function free(): Promise<number> {
  const st = await fs.promises.statfs(volume);
  return Number(st.bavail) * Number(st.bsize);
}

test('one tenant fills the volume: a clear 507 for the filler, everyone else served, PostgreSQL whole, full recovery after deleting', { skip, timeout: 600_000 }, async (t) => {
  const mallory = await tenant('filler');
  const bob = await tenant('bob');
  const bobsFile = await bob.upload(64 * 1024);
  assert.equal(bobsFile.status, 201);

  // Mallory uploads 20 MB files until the store refuses.
  const mine: string[] = [];
  let refusal: { status: number; body: any } | undefined;
  for (let i = 0; i < 40 && !refusal; i++) {
    const r = await mallory.upload(20 * 1024 * 1024);
    if (r.status === 201) mine.push(r.body.id);
    else refusal = r;
  }
  t.diagnostic(`${mine.length} uploads of 20 MB stored; ${Math.round((await free()) / 1024 / 1024)} MB left free on the volume`);
  assert.ok(mine.length >= 5, `only ${mine.length} uploads fit`);
  assert.equal(refusal?.status, 507, JSON.stringify(refusal));
  assert.equal(refusal!.body.code, 'INSUFFICIENT_STORAGE');
  assert.match(refusal!.body.message, /out of storage space/);
  // The reserve held: the volume still has room for the database, and no partial blob was left behind.
  assert.ok((await free()) > 100 * 1024 * 1024, `${await free()} bytes free`);
  assert.deepEqual(fs.readdirSync(path.join(volume, 'files')).filter((n) => n.endsWith('.tmp')), []);

  // Everyone else is served: Bob's file, his balance, a new run of his (PostgreSQL writes) to completion.
  const signed = await fetch(bobsFile.body.url);
  assert.equal(signed.status, 200);
  assert.equal((await signed.arrayBuffer()).byteLength, 64 * 1024);
  assert.equal((await bob.api('GET', '/v1/credits/balance')).status, 200);
  const run = await bob.api('POST', '/v1/nodes/word_count/run', { input: { text: 'still here' } });
  assert.equal(run.status, 202, run.text);
  let status = '';
  for (let i = 0; i < 600 && !['COMPLETED', 'FAILED'].includes(status); i++) {
    status = (await bob.api('GET', `/v1/nodes/runs/${run.body.runId}`)).body.status;
    if (status !== 'COMPLETED') await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 'COMPLETED');
  // PostgreSQL accepts new connections.
  const client = new pg.Client({ connectionString: server!.services.db.url });
  await client.connect();
  assert.equal((await client.query('SELECT 1 AS one')).rows[0].one, 1);
  await client.end();

  // Recovery: Mallory deletes her files; uploads work again.
  for (const id of mine) assert.equal((await mallory.api('DELETE', `/v1/files/${id}`)).status, 204);
  const after = await mallory.upload(20 * 1024 * 1024);
  assert.equal(after.status, 201, JSON.stringify(after.body));
});
