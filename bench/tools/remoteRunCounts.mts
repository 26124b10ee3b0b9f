// Probe (issue 31 items 1–2): what one remote run costs PostgreSQL and the service. Paced `gpt_5_4` runs with
// `Prefer: wait` into one `atelier serve` (all roles) against a fake OpenAI answering in 20 ms; prints per run
// the statements (pg_stat_statements, when the server preloads it), transactions, WAL flushes, and the
// service process's CPU ms, with the most called statements.
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres node --import tsx bench/tools/remoteRunCounts.mts [rate] [seconds] [ENV=VALUE ...]
import fs from 'node:fs';
import { findPostgres } from '../lib/database.js';
import { pgProbe } from '../lib/pgProbe.js';
import { startService } from '../lib/service.js';
import { round, sleep } from '../lib/stats.js';
import { startGatedChat } from '../../test/helpers/providers/gatedChat.js';

const [rate = 40, seconds = 5] = process.argv.slice(2, 4).map(Number);
const env = Object.fromEntries(process.argv.slice(4).map((a) => a.split('=') as [string, string]));
const fake = await startGatedChat({ delayMs: 20 });
const pg = await findPostgres();
const svc = await startService(pg, ['all'], { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk', ...env });
const cpu = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
try {
  const probe = await pgProbe(pg.adminUrl, svc.databaseUrl);
  const keys = (await svc.keys(8)).map((k) => k.key);
  let failed = 0;
  const post = async (i: number) => {
    const r = await fetch(`${svc.url}/v1/nodes/gpt_5_4/run`, { method: 'POST', headers: { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json', prefer: 'wait=60' }, body: JSON.stringify({ input: { prompt: `run ${i}` } }) });
    const body = (await r.json()) as { status?: string };
    if (r.status !== 200 || body.status !== 'COMPLETED') failed++;
  };
  await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)));
  // PostgreSQL 15 reports a backend's transaction counts at most once a second, an idle one's after 10 s.
  await sleep(11_000);
  const pid = svc.procs[0]!.child.pid!;
  const a = await probe.read();
  const c0 = cpu(pid);
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  const n = rate * seconds;
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due - performance.now() > 1) await sleep(due - performance.now());
    pending.push(post(i));
  }
  await Promise.all(pending);
  const c1 = cpu(pid);
  await sleep(11_000);
  const b = await probe.read();
  const d = await probe.delta(a, b);
  const per = (x: number) => round(x / n, 2);
  console.log(`${n} remote runs at ${rate}/s (Prefer: wait) env ${JSON.stringify(env)}; not COMPLETED: ${failed}; load ${(await import('node:os')).loadavg().map((x) => round(x, 1))}`);
  console.log(`  per run: statements ${d.statements === undefined ? 'n/a (no pg_stat_statements)' : per(d.statements)}, transactions ${per(d.xacts + d.rollbacks)}, WAL flushes ${per(d.walSyncs)}, rows written ${per(d.rowsWritten)}, service CPU ${per(c1 - c0)} ms`);
  for (const [q, k] of Object.entries(d.byStatement ?? {}).sort((x, y) => y[1] - x[1]).slice(0, 30)) console.log(`  ${per(k).toFixed(2).padStart(6)}  ${q}`);
  await probe.close();
} finally {
  await svc.stop();
  await pg.stop();
  await fake.close();
}
