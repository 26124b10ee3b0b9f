// Probe (issue 31 item 2): paced runs into one `atelier serve` (all roles); where the time goes per run,
// from the runs' own timestamps, and the service process's CPU use during the wave.
//   node --import tsx bench/tools/queueProbe.mts [rate] [seconds] [model] [ENV=VALUE ...]
import fs from 'node:fs';
import { findPostgres } from '../lib/database.js';
import { startService } from '../lib/service.js';
import { percentile, round, sleep } from '../lib/stats.js';
import { startGatedChat } from '../../test/helpers/providers/gatedChat.js';

const [rate = 200, seconds = 5] = process.argv.slice(2, 4).map(Number);
const model = process.argv[4] ?? 'word_count';
const env = Object.fromEntries(process.argv.slice(5).map((a) => a.split('=') as [string, string]));
const fake = await startGatedChat({ delayMs: 20 });
const pg = await findPostgres();
const svc = await startService(pg, ['all'], { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk', ...env });
const cpu = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
try {
  const keys = (await svc.keys(8)).map((k) => k.key);
  const input = model === 'word_count' ? (i: number) => ({ text: `run ${i}` }) : (i: number) => ({ prompt: `run ${i}` });
  const post = (i: number) => fetch(`${svc.url}/v1/nodes/${model}/run`, { method: 'POST', headers: { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: input(i) }) });
  await Promise.all(Array.from({ length: 20 }, (_, i) => post(i).then((r) => r.text())));
  await sleep(1000);
  const pid = svc.procs[0]!.child.pid!;
  const c0 = cpu(pid);
  const ids: string[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due - performance.now() > 1) await sleep(due - performance.now());
    pending.push(post(i).then(async (r) => { ids.push(((await r.json()) as any).runId); }));
  }
  await Promise.all(pending);
  const created = performance.now() - t0;
  for (;;) {
    const n = (await svc.services.db.query(`SELECT count(*)::int n FROM runs WHERE id = ANY($1) AND finished_at IS NOT NULL`, [ids])).rows[0].n;
    if (n === ids.length) break;
    await sleep(50);
  }
  const wall = performance.now() - t0;
  const c1 = cpu(pid);
  const r = (await svc.services.db.query(`SELECT extract(epoch FROM started_at - enqueued_at) * 1000 AS claim, extract(epoch FROM finished_at - started_at) * 1000 AS run, extract(epoch from finished_at) * 1000 AS fin FROM runs WHERE id = ANY($1)`, [ids])).rows;
  const claim = r.map((x) => Number(x.claim));
  const run = r.map((x) => Number(x.run));
  const f = (a: number[]) => `p50 ${round(percentile(a, 50), 1)} p90 ${round(percentile(a, 90), 1)} p99 ${round(percentile(a, 99), 1)} max ${round(Math.max(...a), 1)}`;
  console.log(`rate ${rate}/s × ${seconds}s ${model} env ${JSON.stringify(env)}`);
  console.log(`  created in ${round(created)} ms, all finished in ${round(wall)} ms; service CPU ${round((c1 - c0) / wall * 100)}% of one core, ${round((c1 - c0) / ids.length, 2)} ms per run; load ${(await import('node:os')).loadavg().map((x) => round(x, 1))}`);
  console.log(`  enqueue→RUNNING ${f(claim)}`);
  console.log(`  RUNNING→ended   ${f(run)}`);
} finally {
  await svc.stop();
  await pg.stop();
  await fake.close();
}
