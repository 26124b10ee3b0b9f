// Profiling aid (issue 29): the run-creation statement (runs/queries.ts createRunStatement) under
// EXPLAIN ANALYZE in rolled-back transactions, for an account with no spend limits, the key's daily
// limit, or six limits: median execution time and WAL records, then the plan of the last one (PLAN=1).
//   node --import tsx bench/tools/budgetExplain.mts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgres } from '../lib/database.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { createServices } from '../../src/app/services.ts';
import { setLimits } from '../../src/ledger/budgets.ts';
import { createRunStatement } from '../../src/runs/queries.ts';
import { jobPrioritySql } from '../../src/queue/fairness.ts';
import { newId } from '../../src/ids.ts';

const N = Number(process.env.N ?? 60);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-be-data-'));
const pg = await findPostgres();
const db = await pg.fresh();
const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir });
const o = await openDatabase(config, { poolSize: 2 });
const s = await createServices(config, o.db);
await s.queue.start();
let n = 0;
async function user(kind: 'none' | 'one' | 'six') {
  const limits = kind === 'six' ? { day: 1e13, month: 1e13, total: 1e13 } : { day: 1e13 };
  const u = await s.accounts.createUser({ email: `be${++n}@x.io`, password: 'password123' });
  await s.credits.grant(u.actingAccountId, 10n ** 14n);
  const k = await s.keys.create(u, { label: 'b', perMinute: 10000, perDay: 100000, ...(kind !== 'none' ? { budgets: limits } : {}) });
  if (kind === 'six') await setLimits(o.db, u.actingAccountId, null, limits);
  return { accountId: u.actingAccountId, keyId: k.id };
}
// Some unrelated limits, so a scan of budgets shows.
for (let i = 0; i < 30; i++) await user('six');
const users = { none: await user('none'), one: await user('one'), six: await user('six') };
const job = s.queue.runJobInsert('run', { runId: 'x', kind: 'node' }, 660, 18, { prioritySql: jobPrioritySql('$2', '$16') });
const sql = createRunStatement(job.sql);
const client = await o.db.pool.connect();
const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
let plan: any;
for (const pass of [0, 1]) {
  for (const k of ['none', 'one', 'six'] as const) {
    const u = users[k];
    const times: number[] = [], ptimes: number[] = [];
    for (let i = 0; i < N; i++) {
      const values = [newId('run'), u.accountId, 'node', 'word_count', null, null, { text: 'hello' }, 1000n, null, null, 600, null, 'h', 'node-run', null, 0, u.keyId, ...job.values];
      await client.query('BEGIN');
      const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${sql}`, values);
      await client.query('ROLLBACK');
      plan = r.rows[0]['QUERY PLAN'][0];
      times.push(plan['Execution Time']); ptimes.push(plan['Planning Time']);
    }
    if (pass) console.log(`${k}: exec ${median(times).toFixed(3)} ms, plan ${median(ptimes).toFixed(3)} ms, WAL records ${plan.Plan['WAL Records']}, bytes ${plan.Plan['WAL Bytes']}`);
    if (pass && process.env.PLAN === k) console.log(JSON.stringify(plan, (key, v) => (['Output', 'Shared Hit Blocks', 'Shared Read Blocks', 'Shared Dirtied Blocks', 'Shared Written Blocks', 'Local Hit Blocks', 'Local Read Blocks', 'Local Dirtied Blocks', 'Local Written Blocks', 'Temp Read Blocks', 'Temp Written Blocks', 'Parallel Aware', 'Async Capable', 'Startup Cost', 'Plan Width', 'WAL FPI'].includes(key) ? undefined : v), 1));
  }
}
// Does the prepared statement (as runs/service.ts runs it) keep a generic plan, or replan every time?
for (const k of ['none', 'one', 'six'] as const) {
  const u = users[k];
  const t0 = performance.now();
  for (let i = 0; i < 40; i++) {
    const values = [newId('run'), u.accountId, 'node', 'word_count', null, null, { text: 'hello' }, 1000n, null, null, 600, null, 'h', 'node-run', null, 0, u.keyId, ...job.values];
    await client.query('BEGIN');
    await client.query({ name: `create_${k}`, text: sql, values });
    await client.query('ROLLBACK');
  }
  const ms = (performance.now() - t0) / 40;
  const r = (await client.query(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1`, [`create_${k}`])).rows[0];
  console.log(`${k} prepared: ${ms.toFixed(3)} ms a create (BEGIN+execute+ROLLBACK), generic plans ${r.generic_plans}, custom plans ${r.custom_plans}`);
}
client.release();
await s.queue.stop(); await o.close(); await db.drop(); await pg.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
