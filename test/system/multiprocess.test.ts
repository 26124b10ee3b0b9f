import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import type { Services } from '../../src/services.js';
import { createServices } from '../../src/app/services.js';
import { freshDatabase } from '../helpers/db.js';
import { spawnRole, type RoleProcess } from '../helpers/processes.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/poll.js';

// Issue #10 item 1: two API processes, two workers and two deliverers, each its own OS process, on one
// PostgreSQL and one shared DATA_DIR. This test process only prepares the account and reads the database.
const RUNS = 500;
const PRICE = 500n; // word_count's flat price in microcredits
const START_CREDITS = 1_000_000n;
const SMALL_LIMIT = 7;

let database: { url: string; drop: () => Promise<void> };
let opened: Database;
let services: Services;
let dataDir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const procs: RoleProcess[] = [];

before(async () => {
  database = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-mp-'));
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir });
  opened = await openDatabase(config, { poolSize: 3 }); // migrates once, before any child starts
  services = await createServices(config, opened.db);
  receiver = await startReceiver();
  const env = {
    DATABASE_URL: database.url, DATA_DIR: dataDir,
    ATELIER_ALLOW_PRIVATE_URLS: '1',
    ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.5,1',
    ATELIER_SWEEP_INTERVAL_MS: '500',
  };
  const roles = ['api', 'api', 'worker', 'worker', 'deliverer', 'deliverer'] as const;
  procs.push(...(await Promise.all(roles.map((r) => spawnRole(r, env)))));
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await receiver?.close();
  await opened?.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function newUser(label: string, perMinute: number, microcredits: bigint) {
  const user = await services.accounts.createUser({ email: `${label}-${process.pid}@example.com`, password: 'correct horse battery' });
  if (microcredits > 0n) await services.credits.grant(user.actingAccountId, microcredits);
  const key = await services.keys.create(user, { label, perMinute, perDay: 100_000 });
  return { accountId: user.actingAccountId, key: key.key };
}

async function post(base: string, key: string, p: string, body: unknown) {
  const res = await fetch(base + p, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as any };
}

/** The last lines of every process, for a wait that timed out (the `explain` of helpers/poll.ts `until`). */
const tails = () => procs.map((p) => `--- ${p.role}\n${p.tail()}`).join('\n');

const apis = () => procs.filter((p) => p.role === 'api').map((p) => p.url!);

test(`${RUNS} runs through two API processes complete once, are charged once, and every webhook attempt arrives once`, async () => {
  const u = await newUser('load', 10_000, START_CREDITS);
  const [a, b] = apis();
  // Every 25th run's first delivery of each event is refused by the receiver, so retries happen across deliverers.
  const refusedOnce = new Set<string>();
  receiver.setResponder((r) => {
    const i = r.json?.metadata?.i;
    const id = r.headers['webhook-id']!;
    if (typeof i === 'number' && i % 25 === 0 && !refusedOnce.has(id)) {
      refusedOnce.add(id);
      return 500;
    }
    return 200;
  });

  const runIds: string[] = [];
  let next = 0;
  const client = async () => {
    while (next < RUNS) {
      const i = next++;
      const base = i % 2 === 0 ? a! : b!;
      const r = await post(base, u.key, '/v1/nodes/word_count/run', { input: { text: `run number ${i} of the load` }, webhook: { url: receiver.url('/hook'), metadata: { i } } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      runIds.push(r.body.runId);
    }
  };
  await Promise.all(Array.from({ length: 16 }, client));
  assert.equal(new Set(runIds).size, RUNS);

  const db = opened.db;
  await until('every run to finish', async () =>
    (await db.query(`SELECT count(*)::int AS n FROM runs WHERE status IN ('COMPLETED', 'FAILED', 'CANCELED')`)).rows[0].n === RUNS, 120_000, tails);
  await until('every webhook to be delivered', async () =>
    (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`)).rows[0].n === 0, 60_000, tails);

  // Each run: completed, taken by a worker exactly once, and exactly run.started then run.completed.
  const runs = (await db.query(`SELECT id, status, attempts, charged_microcredits FROM runs WHERE id = ANY($1)`, [runIds])).rows;
  assert.equal(runs.length, RUNS);
  for (const r of runs) {
    assert.equal(r.status, 'COMPLETED', r.id);
    assert.equal(r.attempts, 1, `${r.id} was picked up ${r.attempts} times`);
    assert.equal(r.charged_microcredits, PRICE);
  }
  const events = (await db.query(`SELECT run_id, array_agg(type ORDER BY id) AS types FROM events WHERE run_id = ANY($1) GROUP BY run_id`, [runIds])).rows;
  assert.equal(events.length, RUNS);
  for (const e of events) assert.deepEqual(e.types, ['run.started', 'run.completed'], e.run_id);

  // Money: one reserve and one capture per run, and the balance moved by exactly their sum.
  const ledger = (await db.query(`SELECT run_id, array_agg(kind ORDER BY id) AS kinds, sum(posted_delta)::bigint AS posted FROM ledger_entries WHERE run_id = ANY($1) GROUP BY run_id`, [runIds])).rows;
  assert.equal(ledger.length, RUNS);
  for (const l of ledger) {
    assert.deepEqual(l.kinds, ['reserve', 'capture'], l.run_id);
    assert.equal(l.posted, -PRICE);
  }
  const balance = await services.credits.balance(u.accountId);
  assert.equal(balance.posted, START_CREDITS - PRICE * BigInt(RUNS));
  assert.equal(balance.reserved, 0n);

  // Webhooks: every event arrived once per recorded attempt, under its own webhook-id; refused ones twice.
  const deliveries = (await db.query(`SELECT d.event_id, d.attempts, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS recorded
      FROM webhook_deliveries d WHERE d.run_id = ANY($1)`, [runIds])).rows;
  assert.equal(deliveries.length, RUNS * 2);
  const arrivals = new Map<string, number>();
  for (const r of receiver.forPath('/hook')) arrivals.set(r.headers['webhook-id']!, (arrivals.get(r.headers['webhook-id']!) ?? 0) + 1);
  assert.equal(arrivals.size, RUNS * 2);
  for (const d of deliveries) {
    const expected = refusedOnce.has(d.event_id) ? 2 : 1;
    assert.equal(d.recorded, expected, `${d.event_id}: ${d.recorded} attempts recorded`);
    assert.equal(d.attempts, expected);
    assert.equal(arrivals.get(d.event_id), expected, `${d.event_id} arrived ${arrivals.get(d.event_id)} times`);
  }
  assert.equal(refusedOnce.size, (RUNS / 25) * 2, 'the refusals the test planned all happened');
});

test('a key\'s per-minute limit holds across both API processes', async () => {
  const u = await newUser('limited', SMALL_LIMIT, 0n);
  // A burst that straddles a minute boundary would see two windows; start early in a minute instead.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
  const [a, b] = apis();
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    fetch(`${i % 2 === 0 ? a : b}/v1/credits/balance`, { headers: { authorization: `Bearer ${u.key}` } }).then(async (r) => ({ status: r.status, port: new URL(r.url).port, body: await r.json() as any }))));
  const admitted = answers.filter((r) => r.status === 200);
  const refused = answers.filter((r) => r.status === 429);
  assert.equal(admitted.length, SMALL_LIMIT, JSON.stringify(answers.map((r) => r.status)));
  assert.equal(refused.length, 30 - SMALL_LIMIT);
  for (const r of refused) assert.equal(r.body.code, 'RATE_LIMITED');
  // Both processes took part on each side of the limit.
  assert.equal(new Set(answers.map((r) => r.port)).size, 2);
});
