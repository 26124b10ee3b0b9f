// Profiling aid (issue 31 item 3): what one POST /v1/nodes/word_count/run costs the database, counted
// from PostgreSQL's statistics over N creates on an API process: transactions, and rows written per table.
//   N=500 node --import tsx bench/tools/createCounts.mts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgres } from '../lib/database.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { createServices } from '../../src/app/services.ts';
import { spawnRole } from '../../test/helpers/processes.ts';

const N = Number(process.env.N ?? 500);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cc-data-'));
const pg = await findPostgres();
const db = await pg.fresh();
const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir });
const o = await openDatabase(config, { poolSize: 2 });
const s = await createServices(config, o.db);
const keys: string[] = [];
for (let i = 0; i < 10; i++) {
  const u = await s.accounts.createUser({ email: `cc${i}@x.io`, password: 'password123' });
  await s.credits.grant(u.actingAccountId, 10n ** 14n);
  keys.push((await s.keys.create(u, { label: 'b', perMinute: 10000, perDay: 100000, ...(process.env.BUDGET ? { budgets: { day: 1e13 } } : {}) })).key);
}
const key = keys[0]!;
if (process.env.LOG_SQL) await o.db.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} SET log_statement = 'all'`);
const p = await spawnRole('api', { DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, { readyBy: 'http' });
const post = () => fetch(`${p.url}/v1/nodes/word_count/run`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"input":{"text":"hello world"}}' }).then((r) => r.text());
for (let i = 0; i < 50; i++) await post();
const stats = async () => {
  await o.db.query('SELECT pg_stat_clear_snapshot()');
  const x = (await o.db.query(`SELECT xact_commit + xact_rollback AS tx, tup_returned, tup_fetched FROM pg_stat_database WHERE datname = current_database()`)).rows[0];
  const t = (await o.db.query(`SELECT schemaname || '.' || relname AS t, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_all_tables WHERE schemaname IN ('public', 'pgboss')`)).rows;
  return { x, t };
};
await new Promise((r) => setTimeout(r, 1000));
const a = await stats();
for (let i = 0; i < N; i++) await post();
await new Promise((r) => setTimeout(r, 1500));
const b = await stats();
console.log(`transactions per create: ${((Number(b.x.tx) - Number(a.x.tx)) / N).toFixed(2)} (this script's own stats reads included)`);
for (const r of b.t) {
  const r0 = a.t.find((x: any) => x.t === r.t)!;
  const d = ['ins', 'upd', 'hot', 'del'].map((k) => (Number(r[k]) - Number(r0[k])) / N);
  if (d.some((v) => v > 0.001)) console.log(r.t.padEnd(32), d.map((v, i) => `${['ins', 'upd', 'hot', 'del'][i]} ${v.toFixed(2)}`).join('  '));
}
// CPU per create under load (20 connections): the API process's and its database backends', from /proc.
const ticks = (pid: number) => { try { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; } catch { return 0; } };
const backends = async () => (await o.db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid as number);
const { hammer } = await import('../lib/load.ts');
const url = `${p.url}/v1/nodes/word_count/run`;
for (let round = 0; round < Number(process.env.R ?? 2); round++) {
  await hammer({ url, method: 'POST', body: '{"input":{"text":"hello world"}}', connections: 20, seconds: 1, keys });
  const pids = await backends();
  const n0 = ticks(p.child.pid!), b0 = pids.map(ticks);
  const r = await hammer({ url, method: 'POST', body: '{"input":{"text":"hello world"}}', connections: 20, seconds: Number(process.env.S ?? 5), keys });
  const node = ticks(p.child.pid!) - n0, pgms = pids.map(ticks).reduce((a, x, i) => a + x - b0[i]!, 0);
  console.log(`${Math.round(r.rps)} creates/s; CPU per create: API process ${((node * 1000) / r.total).toFixed(0)} µs, its ${pids.length} backends ${((pgms * 1000) / r.total).toFixed(0)} µs`);
}
await p.stop(); await o.close(); await db.drop(); await pg.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
