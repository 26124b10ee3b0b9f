// Profiling aid (issue 29): run creation through ModelRunService in this process, no HTTP, for accounts
// with no spend limits, the key's daily limit, or six limits, rounds interleaved; prints creates/s and
// the ratios. Settings by env: C (concurrency, 20), S (seconds per round, 3), R (rounds, 3).
//   node --import tsx bench/tools/budgetCreates.mts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgres } from '../lib/database.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { createServices } from '../../src/app/services.ts';
import { setLimits } from '../../src/ledger/budgets.ts';

const C = Number(process.env.C ?? 20), S = Number(process.env.S ?? 3), R = Number(process.env.R ?? 3);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bc-data-'));
const pg = await findPostgres();
const db = await pg.fresh();
const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir });
const o = await openDatabase(config, { poolSize: C });
const s = await createServices(config, o.db);
await s.queue.start();
type Set = Array<{ accountId: string; keyId: string }>;
let n = 0;
async function users(kind: 'none' | 'one' | 'six'): Promise<Set> {
  const out: Set = [];
  const limits = kind === 'six' ? { day: 1e13, month: 1e13, total: 1e13 } : { day: 1e13 };
  for (let i = 0; i < 10; i++) {
    const u = await s.accounts.createUser({ email: `bc${++n}@x.io`, password: 'password123' });
    await s.credits.grant(u.actingAccountId, 10n ** 14n);
    const k = await s.keys.create(u, { label: 'b', perMinute: 10000, perDay: 100000, ...(kind !== 'none' ? { budgets: limits } : {}) });
    if (kind === 'six') await setLimits(o.db, u.actingAccountId, null, limits);
    out.push({ accountId: u.actingAccountId, keyId: k.id });
  }
  return out;
}
const sets = { none: await users('none'), one: await users('one'), six: await users('six') };
const waits: Record<string, Map<string, number>> = { none: new Map(), one: new Map(), six: new Map() };
async function round(set: Set, seconds: number, kind?: string): Promise<number> {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  // What the database's backends wait on meanwhile, sampled (WAITS=1).
  const sampler = process.env.WAITS && kind ? (async () => {
    const m = waits[kind]!;
    while (Date.now() < until) {
      const r = await o.db.query(`SELECT coalesce(wait_event_type || ':' || wait_event, state) AS w, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`);
      for (const x of r.rows) m.set(x.w, (m.get(x.w) ?? 0) + x.n);
      await new Promise((res) => setTimeout(res, 20));
    }
  })() : Promise.resolve();
  await Promise.all(Array.from({ length: C }, async (_, w) => {
    while (Date.now() < until) {
      const u = set[(w + done) % set.length]!;
      await s.nodeRuns.create({ accountId: u.accountId, keyId: u.keyId, nodeType: 'word_count', input: { text: 'hello world' } } as any);
      done++;
    }
  }));
  await sampler;
  return done / seconds;
}
for (const k of ['none', 'one', 'six'] as const) await round(sets[k], 1);
// WAL bytes per create (serial): what each create makes the commit write and fsync.
for (const k of ['none', 'one', 'six', 'none', 'one', 'six'] as const) {
  const lsn = async () => (await o.db.query(`SELECT pg_current_wal_insert_lsn() AS l`)).rows[0].l;
  const a = await lsn();
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) { const u = sets[k][i % 10]!; await s.nodeRuns.create({ accountId: u.accountId, keyId: u.keyId, nodeType: 'word_count', input: { text: 'hello world' } } as any); }
  const ms = (performance.now() - t0) / 200;
  const b = await lsn();
  const bytes = (await o.db.query(`SELECT pg_wal_lsn_diff($1, $2) AS d`, [b, a])).rows[0].d;
  console.log(`${k}: ${(Number(bytes) / 200).toFixed(0)} WAL bytes/create, ${ms.toFixed(2)} ms serial`);
}
if (process.env.ONLY_WAL) process.exit(0);
const tot = { none: 0, one: 0, six: 0 };
for (let r = 0; r < R; r++) {
  const order = r % 2 ? (['six', 'one', 'none'] as const) : (['none', 'one', 'six'] as const);
  for (const k of order) { const x = await round(sets[k], S, k); tot[k] += x; process.stdout.write(`${k} ${x.toFixed(0)}  `); }
  console.log();
}
if (process.env.WAITS) for (const k of ['none', 'one', 'six']) console.log(k, [...waits[k]!].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([w, n]) => `${w} ${n}`).join(', '));
console.log(`none ${(tot.none / R).toFixed(0)}/s  one ${(tot.one / tot.none).toFixed(3)}  six ${(tot.six / tot.none).toFixed(3)}`);
await s.queue.stop(); await o.close(); await db.drop(); await pg.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
