/**
 * The proof on separate hosts (issue #21 item 3), run by test/system/separateHosts.test.ts INSIDE the "svc" network
 * namespace. That namespace is the shared-services host: PostgreSQL and an S3 server (s3rver) bound to its
 * virtual address, and a webhook receiver. The API host and two worker hosts are other namespaces, reached
 * only over the virtual network; each Atelier process has its own DATA_DIR (nothing shared on disk).
 * Prints progress lines and exits 0 when every claim held, 1 with the reason otherwise.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import sharp from 'sharp';
import { Db } from '../../src/db/pool.js';
import { AccountService } from '../../src/accounts/service.js';
import { KeyService } from '../../src/keys/service.js';
import { CreditService } from '../../src/billing/service.js';
import { BIN } from '../helpers/cli.js';
import { startS3Server } from '../helpers/s3.js';
import { killNamespace } from './netns.js';

const NS = JSON.parse(process.env.HOSTS_NS!) as Record<'svc' | 'api' | 'w1' | 'w2', string>;
const ADDR = JSON.parse(process.env.HOSTS_ADDR!) as Record<'svc' | 'api' | 'w1' | 'w2', string>;
const WORK = process.env.HOSTS_WORK!;
const log = (msg: string) => console.log(`[hosts] ${msg}`);
const children: ChildProcess[] = [];

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** PostgreSQL of this machine's installation, as user postgres, listening on the svc host's virtual address only. */
async function startPostgres(): Promise<string> {
  const dir = path.join(WORK, 'pg');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('chown', ['-R', 'postgres', WORK]);
  const bin = (name: string) => [`/usr/local/bin/${name}`, `/usr/lib/postgresql/15/bin/${name}`].find((p) => fs.existsSync(p)) ?? name;
  execFileSync('runuser', ['-u', 'postgres', '--', bin('initdb'), '-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], { stdio: 'ignore' });
  // initdb trusts loopback only: let the hosts of the virtual network in (trust, as the test server does).
  fs.appendFileSync(path.join(dir, 'data', 'pg_hba.conf'), '\nhost all all 10.77.0.0/24 trust\n');
  const child = spawn('runuser', ['-u', 'postgres', '--', bin('postgres'), '-D', path.join(dir, 'data'), '-h', ADDR.svc, '-p', '5432', '-k', dir,
    '-c', 'max_connections=200', '-c', 'fsync=off'], { stdio: 'ignore' });
  children.push(child);
  const url = `postgres://postgres@${ADDR.svc}:5432/postgres`;
  await waitFor('PostgreSQL', async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.end();
    return true;
  }, 60_000);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('CREATE DATABASE atelier');
  await c.end();
  return `postgres://postgres@${ADDR.svc}:5432/atelier`;
}

interface Host {
  name: 'api' | 'w1' | 'w2';
  procs: ChildProcess[];
  out: string[];
}

function spawnOn(host: Host, role: 'api' | 'worker' | 'deliverer', env: Record<string, string>): ChildProcess {
  const dataDir = path.join(WORK, `data-${host.name}-${role}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawn('ip', ['netns', 'exec', NS[host.name], process.execPath, BIN, 'serve', '--role', role], {
    env: { ...process.env, ...env, DATA_DIR: dataDir, HOST: ADDR[host.name], PORT: role === 'api' ? '8080' : '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const take = (d: Buffer) => {
    for (const line of d.toString().split('\n').filter(Boolean)) {
      host.out.push(`${host.name}/${role}: ${line}`);
      if (host.out.length > 30) host.out.shift();
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  host.procs.push(child);
  children.push(child);
  return child;
}

async function main(): Promise<void> {
  const databaseUrl = await startPostgres();
  log(`PostgreSQL on ${ADDR.svc}:5432`);
  const s3 = await startS3Server({ address: ADDR.svc, port: 9000 });
  const s3env = await s3.bucketEnv('artifacts');
  log(`S3 (s3rver) on ${s3.endpoint}, bucket artifacts`);

  // The webhook receiver, on the shared host's virtual address.
  const hooks: Array<{ path: string; type: string; runId: string; workerAddr?: string }> = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const j = JSON.parse(body);
        hooks.push({ path: req.url ?? '', type: j.type, runId: j.runId, workerAddr: req.socket.remoteAddress });
      } catch {
        // not JSON: ignored
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(7000, ADDR.svc, r));

  const env = {
    DATABASE_URL: databaseUrl, ...s3env, ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_DB_POOL_SIZE: '6',
    ATELIER_RUN_LEASE_SECONDS: '3', ATELIER_SWEEP_INTERVAL_MS: '300', ATELIER_WORKER_CONCURRENCY: '1',
    ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,0.5,1,1,1', ATELIER_SHUTDOWN_GRACE_MS: '0', PUBLIC_URL: `http://${ADDR.api}:8080`,
  };
  const hosts: Record<'api' | 'w1' | 'w2', Host> = { api: { name: 'api', procs: [], out: [] }, w1: { name: 'w1', procs: [], out: [] }, w2: { name: 'w2', procs: [], out: [] } };
  const tails = () => Object.values(hosts).flatMap((h) => h.out).join('\n');
  try {
    spawnOn(hosts.api, 'api', env);
    const base = `http://${ADDR.api}:8080`;
    await waitFor('the API host', async () => (await fetch(`${base}/readyz`)).ok, 120_000);
    for (const w of [hosts.w1, hosts.w2]) {
      spawnOn(w, 'worker', env);
      spawnOn(w, 'deliverer', env);
    }
    log(`API on ${base}; workers and deliverers on ${ADDR.w1} and ${ADDR.w2}`);

    // An account made straight in the shared database (as `atelier users create` would).
    const db = new Db(databaseUrl, { max: 3, applicationName: 'hosts-driver' });
    const user = await new AccountService(db).createUser({ email: 'hosts@example.com', password: 'correct horse battery' });
    const START = 50_000_000n;
    await new CreditService(db).grant(user.actingAccountId, START);
    const key = (await new KeyService(db).create(user, { label: 'hosts', perMinute: 10_000, perDay: 100_000 })).key;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
    };
    const waitRun = (p: string) => waitFor(`${p} to end`, async () => {
      const r = await call('GET', p);
      return ['COMPLETED', 'FAILED', 'CANCELED'].includes(r.body?.status) ? r.body : undefined;
    }, 300_000);
    const hook = (tag: string) => ({ url: `http://${ADDR.svc}:7000/hook/${tag}` });

    // 1. Runs and a workflow, submitted to the API host, completed by the worker hosts.
    const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer();
    const image = `data:image/png;base64,${png.toString('base64')}`;
    const runIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call('POST', '/v1/nodes/sfxr_sound_effects/run', { subModelId: 'sfxr-pickup-coin', input: { seed: 100 + i }, webhook: hook(`sfx${i}`) });
      assert.equal(r.status, 202, r.text);
      runIds.push(r.body.runId);
    }
    const wf = await call('POST', '/v1/workflows', {
      name: 'Pan', requestFields: [{ name: 'image', type: 'image' }],
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'image', name: 'image', type: 'image' }] } },
        { id: 'kb', type: 'ken_burns_video', data: { duration: 4, width: 640, height: 360 } },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'image', target: 'kb', targetHandle: 'in:image_url' },
        { source: 'kb', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
      ],
    });
    assert.equal(wf.status, 201, wf.text);
    const wr = await call('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { image } }, webhook: hook('wf') });
    assert.equal(wr.status, 202, wr.text);
    const files: Array<{ id: string; url: string; bytes: number }> = [];
    for (const id of runIds) {
      const run = await waitRun(`/v1/nodes/runs/${id}`);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run));
      files.push(...run.files);
    }
    const wrun = await waitRun(`/v1/runs/${wr.body.runId}`);
    assert.equal(wrun.status, 'COMPLETED', JSON.stringify(wrun));
    // The workflow's video: a signed URL wherever the Response node put it; its size from the file row.
    const urls: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === 'string' && v.includes('/v1/files/')) urls.push(v);
      else if (v && typeof v === 'object') Object.values(v as object).forEach(collect);
    };
    collect(wrun.outputs);
    assert.equal(urls.length, 1, `workflow outputs: ${JSON.stringify(wrun.outputs)}`);
    const fileId = /\/v1\/files\/(file_[0-9A-Za-z]+)/.exec(urls[0]!)![1]!;
    const row = (await db.query(`SELECT bytes, content_type FROM files WHERE id = $1`, [fileId])).rows[0];
    assert.equal(row.content_type, 'video/mp4');
    files.push({ id: fileId, url: urls[0]!, bytes: Number(row.bytes) });
    log(`${runIds.length} runs and 1 workflow run COMPLETED; ${files.length} output files`);

    // 2. Outputs download through the API host (signed link and API key); the bytes are the bucket's object.
    const s3c = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const objects = new Set(((await s3c.send(new ListObjectsV2Command({ Bucket: 'artifacts', Prefix: 'blobs/' }))).Contents ?? []).map((o) => o.Key!));
    assert.ok(files.length >= 5, `files: ${JSON.stringify(files)}`);
    for (const f of files) {
      assert.ok(f.url.startsWith(`${base}/v1/files/`), f.url);
      const res = await fetch(f.url);
      assert.equal(res.status, 200, `${f.url}: ${res.status}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(bytes.length, f.bytes);
      assert.ok(objects.has(`blobs/${crypto.createHash('sha256').update(bytes).digest('hex')}`), 'the download is the object in the bucket');
    }
    for (const w of ['api', 'w1', 'w2'] as const) {
      const dir = path.join(WORK, `data-${w}-${w === 'api' ? 'api' : 'worker'}`, 'files');
      assert.ok(!fs.existsSync(dir) || fs.readdirSync(dir, { recursive: true }).length === 0, `no artifact bytes on host ${w}'s disk`);
    }
    log(`${files.length} downloads through the API host match their objects in the bucket; no host keeps artifact bytes on disk`);

    // 3. Webhooks arrived, sent from the worker hosts' deliverers.
    await waitFor('webhooks', async () => [...runIds, wr.body.runId].every((id) => hooks.some((h) => h.runId === id && h.type === 'run.completed')), 60_000);
    const senders = new Set(hooks.map((h) => h.workerAddr?.replace(/^::ffff:/, '')));
    assert.ok([...senders].every((a) => a === ADDR.w1 || a === ADDR.w2), `webhooks from ${[...senders].join(', ')}`);
    log(`run.completed webhooks arrived for every run, sent from ${[...senders].sort().join(' and ')}`);

    // Which hosts talk to PostgreSQL: the API and both worker hosts, over the virtual network.
    const clients = (await db.query(`SELECT DISTINCT host(client_addr) AS a FROM pg_stat_activity WHERE datname = 'atelier' AND client_addr IS NOT NULL`)).rows.map((r) => r.a);
    for (const h of ['api', 'w1', 'w2'] as const) assert.ok(clients.includes(ADDR[h]), `PostgreSQL clients: ${clients.join(', ')}`);

    // 4. Kill one worker host mid-run: two slow runs, one on each worker (concurrency 1), then every process
    // of host w1 is killed with SIGKILL. Host w2 finishes both; each is charged exactly once.
    const slow: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', '/v1/nodes/ken_burns_video/run', { input: { image_url: image, duration: 15, width: 960, height: 540, fps: 24 }, webhook: hook(`slow${i}`) });
      assert.equal(r.status, 202, r.text);
      slow.push(r.body.runId);
    }
    await waitFor('both slow runs RUNNING (one per worker host)', async () => {
      const r = await db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status = 'RUNNING'`, [slow]);
      return r.rows[0].n === 2;
    }, 180_000);
    killNamespace(NS.w1);
    await waitFor('host w1 processes to die', async () => hosts.w1.procs.every((p) => p.exitCode !== null || p.signalCode !== null), 30_000);
    log('both slow runs RUNNING; killed every process of host w1 (SIGKILL)');
    for (const id of slow) {
      const run = await waitRun(`/v1/nodes/runs/${id}`);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run));
      const got = await fetch(run.files[0].url);
      assert.equal(got.status, 200);
      assert.equal(Buffer.from(await got.arrayBuffer()).length, run.files[0].bytes);
    }
    const attempts = (await db.query(`SELECT id, attempts FROM runs WHERE id = ANY($1) ORDER BY id`, [slow])).rows;
    assert.ok(attempts.some((r) => r.attempts >= 2), `one run was taken over after w1 died: ${JSON.stringify(attempts)}`);
    await waitFor('slow runs\' webhooks', async () => slow.every((id) => hooks.some((h) => h.runId === id && h.type === 'run.completed')), 60_000);
    const everyRun = [...runIds, wr.body.runId, ...slow];
    const captures = (await db.query(`SELECT run_id, count(*)::int AS n FROM ledger_entries WHERE kind = 'capture' AND run_id = ANY($1) GROUP BY run_id`, [everyRun])).rows;
    for (const id of [...runIds, ...slow]) assert.equal(captures.find((c) => c.run_id === id)?.n, 1, `run ${id} captured once`);
    const charged = (await db.query(`SELECT COALESCE(sum(charged_microcredits), 0)::bigint AS c FROM runs WHERE id = ANY($1)`, [everyRun])).rows[0].c as string;
    const bal = (await db.query(`SELECT posted::text, reserved::text FROM account_balances WHERE account_id = $1`, [user.actingAccountId])).rows[0];
    assert.deepEqual(bal, { posted: String(START - BigInt(charged)), reserved: '0' }, 'the balance is the grant minus what the runs were charged, no hold left');
    log(`both slow runs COMPLETED on host w2 (attempts ${attempts.map((a) => a.attempts).join(', ')}); each run captured exactly once; ${charged} µc charged in all`);

    // 5. `atelier doctor` from the API host: ledger, holds, double charges and artifact blobs all clean.
    const doctor = await new Promise<{ code: number; out: string }>((resolve) => {
      const c = spawn('ip', ['netns', 'exec', NS.api, process.execPath, BIN, 'doctor', '--json', '--stuck-after', '600'], {
        env: { ...process.env, ...env, DATA_DIR: path.join(WORK, 'doctor'), LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      c.stdout!.on('data', (d) => (out += d));
      c.stderr!.on('data', (d) => (out += d));
      c.on('close', (code) => resolve({ code: code ?? 1, out }));
    });
    assert.equal(doctor.code, 0, doctor.out);
    const report = JSON.parse(doctor.out);
    assert.ok(report.checks.some((c: { id: string }) => c.id === 'missing_blobs'));
    log(`atelier doctor on the API host: ${report.checks.map((c: { id: string; findings: number }) => `${c.id}=${c.findings}`).join(' ')}`);
    await db.close();
    s3c.destroy();
    console.log(`RESULT ${JSON.stringify({ runs: runIds.length + slow.length, workflowRuns: 1, files: files.length, webhooks: hooks.length, pgClients: clients, attempts: attempts.map((a) => a.attempts) })}`);
  } catch (err) {
    console.error(`[hosts] FAILED: ${(err as Error).stack ?? err}\n--- last lines of the hosts' processes ---\n${tails()}`);
    process.exitCode = 1;
  } finally {
    for (const ns of [NS.api, NS.w1, NS.w2]) killNamespace(ns);
    receiver.closeAllConnections();
    receiver.close();
    await s3.close().catch(() => {});
    for (const c of children) c.kill('SIGKILL');
  }
}

main().then(() => process.exit(process.exitCode ?? 0), (err) => {
  console.error(`[hosts] FAILED: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
