import os from 'node:os';
import type { BenchPostgres } from '../lib/database.js';
import { hammer } from '../lib/load.js';
import { pgProbe, type PgDelta, type Window } from '../lib/pgProbe.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { percentile, round, sleep } from '../lib/stats.js';
import { startGatedChat } from '../../test/helpers/providers/gatedChat.js';

type Shape = 'one' | 'two';
const SHAPES: Record<Shape, string> = { one: '1 API + 1 worker', two: '2 API + 2 worker' };
const API_ONLY: Record<Shape, string> = { one: '1 API process', two: '2 API processes' };

/**
 * Issue 31 item 5, scale-out: the same deployment measured as one API + one worker process and as two of
 * each, on one PostgreSQL, rounds interleaved (one, two, two, one, …) so the machine's drift hits both.
 *  (a) run creation: POST /v1/nodes/word_count/run at saturation through API processes only (as row b), one
 *      API process against two (the load split between them); nothing executes the runs.
 *  (b) gateway: remote runs (gpt_5_4 through the OpenAI adapter) against a fake provider answering in a fixed
 *      20 ms, `clients` closed-loop clients each creating with `Prefer: wait` and counting COMPLETED answers.
 *      "1 + 1" is the 2 + 2 deployment with its second worker stopped (SIGSTOP, taken only while it holds no
 *      transaction) and all requests sent to the first API; "2 + 2" spreads the clients over both APIs.
 * Each round also samples pg_stat_activity (wait events, lock waits, connections per pool) and the CPU of
 * every process and of the database's backends; then a counted window per shape gives what one run costs
 * PostgreSQL (transactions, statements when pg_stat_statements is loaded, rows written per table, WAL).
 * Guarantees kept: fsync and synchronous_commit as the server has them (on), every run a durable row with
 * its reservation, job and ledger rows, charged once (checked at the end).
 */
export async function scaleOut(pg: BenchPostgres, opts: { seconds: number; rounds: number; connections: number; clients: number; providerMs: number; parts?: string; intake?: number }): Promise<Row[]> {
  const rows: Row[] = [];
  if (!opts.parts || opts.parts.includes('create')) rows.push(...(await creation(pg, opts)));
  if (!opts.parts || opts.parts.includes('gateway')) rows.push(...(await gateway(pg, opts)));
  return rows;
}

async function creation(pg: BenchPostgres, opts: { seconds: number; rounds: number; connections: number }): Promise<Row[]> {
  const svc = await startService(pg, ['api', 'api']);
  const probe = await pgProbe(pg.adminUrl, svc.databaseUrl);
  try {
    const keys = (await svc.keys(10)).map((k) => k.key);
    const body = JSON.stringify({ input: { text: 'hello world' } });
    const urls = svc.procs.map((p) => `${p.url}/v1/nodes/word_count/run`);
    const pids = Object.fromEntries(svc.procs.map((p, i) => [`api${i + 1}`, p.child.pid!]));
    const load = async (shape: Shape, seconds: number) => {
      const targets = shape === 'one' ? urls.slice(0, 1) : urls;
      const per = Math.round(opts.connections / targets.length);
      const r = await Promise.all(targets.map((url) => hammer({ url, method: 'POST', body, connections: per, seconds, keys })));
      return { rps: r.reduce((s, x) => s + x.rps, 0), ok: r.reduce((s, x) => s + x.ok, 0), bad: r.reduce((s, x) => s + x.non2xx + x.errors, 0), p50: Math.max(...r.map((x) => x.p50)) };
    };
    await load('two', 2); // warm-up: both APIs' JIT, pools and key caches
    const got: Record<Shape, number[]> = { one: [], two: [] };
    const windows: Record<Shape, Window[]> = { one: [], two: [] };
    let bad = 0;
    for (const shape of interleave(opts.rounds)) {
      const w = await probe.window(pids);
      const r = await load(shape, opts.seconds);
      windows[shape].push(await w.stop());
      got[shape].push(r.rps);
      bad += r.bad;
    }
    const cost: Partial<Record<Shape, PgDelta & { runs: number }>> = {};
    for (const shape of ['one', 'two'] as const) cost[shape] = await counted(probe, async () => (await load(shape, 3)).ok);
    const one = median(got.one);
    const two = median(got.two);
    const scenario = 'scale. scale-out: run creation';
    return [
      row({ scenario, metric: `creates/s, 2 API processes (${opts.connections} client connections split between them)`, figure: two, unit: 'runs/s', baseline: one, baselineLabel: 'creates/s, 1 API process, same connections', goal: '≥ 0.95 of one process: not slower (2 cores: no more CPU to gain)', met: two >= 0.95 * one,
        note: `rounds one ${got.one.map((x) => Math.round(x)).join(', ')} / two ${got.two.map((x) => Math.round(x)).join(', ')} creates/s, ${pairedRatio(got)}; ${whereItStops(windows, got, cost)}; ${bad} non-2xx or errors; ${describe(windows, API_ONLY)}; load average ${os.loadavg().map((n) => round(n, 1)).join(', ')}` }),
      ...costRows(scenario, 'run created', cost, API_ONLY),
    ];
  } finally {
    await probe.close();
    await svc.stop();
  }
}

async function gateway(pg: BenchPostgres, opts: { seconds: number; rounds: number; clients: number; providerMs: number; intake?: number }): Promise<Row[]> {
  const fake = await startGatedChat({ delayMs: opts.providerMs });
  // The API's availability check for gpt_5_4 reads these in the bench's process too (as in inflightRemote.ts).
  Object.assign(process.env, { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench' });
  let svc: BenchService | undefined;
  let probe: Awaited<ReturnType<typeof pgProbe>> | undefined;
  try {
    svc = await startService(pg, ['api', 'api', 'worker', 'worker'], {
      OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench', ATELIER_ACCOUNT_CONCURRENCY: '0', ATELIER_PROVIDER_CONCURRENCY_OPENAI: '1000',
    }, { worker: { ATELIER_DB_POOL_SIZE: '10', ...(opts.intake !== undefined ? { ATELIER_WORKER_INTAKE: String(opts.intake) } : {}) } });
    const s = svc;
    const p = (probe = await pgProbe(pg.adminUrl, s.databaseUrl));
    const keys = (await s.keys(8)).map((k) => k.key);
    const apis = s.procs.filter((x) => x.role === 'api');
    const workers = s.procs.filter((x) => x.role === 'worker');
    const pids = Object.fromEntries([...apis.map((x, i) => [`api${i + 1}`, x.child.pid!]), ...workers.map((x, i) => [`worker${i + 1}`, x.child.pid!])]);
    const spare = workers[1]!.child;
    const spareApp = `atelier:${spare.pid}`;
    const ids: string[] = [];
    let failures = 0;
    const drive = async (shape: Shape, seconds: number) => {
      const targets = shape === 'one' ? apis.slice(0, 1) : apis;
      const until = performance.now() + seconds * 1000;
      const lat: number[] = [];
      let done = 0;
      let all = 0; // late ones too: the work a counted window saw
      await Promise.all(Array.from({ length: opts.clients }, async (_, c) => {
        const url = `${targets[c % targets.length]!.url}/v1/nodes/gpt_5_4/run`;
        const key = keys[c % keys.length]!;
        let i = 0;
        while (performance.now() < until) {
          const t0 = performance.now();
          const r = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'wait=30' }, body: JSON.stringify({ input: { prompt: `client ${c} run ${i++}` } }) });
          const b = (await r.json().catch(() => ({}))) as { id?: string; runId?: string; status?: string };
          const t1 = performance.now();
          if (b.status === 'COMPLETED') {
            if (t1 <= until) {
              done++;
              lat.push(t1 - t0);
            }
            ids.push(String(b.id ?? b.runId));
            all++;
          } else failures++;
        }
      }));
      return { rate: done / seconds, done, all, p50: percentile(lat, 50), p99: percentile(lat, 99) };
    };
    // The 1 + 1 shape: the second worker frozen while it holds no transaction (so it blocks no one).
    const shapeTo = async (shape: Shape) => {
      if (shape === 'two') {
        spare.kill('SIGCONT');
        return;
      }
      for (;;) {
        await sleep(300); // the last run's job completion and events are written by now
        spare.kill('SIGSTOP');
        const busy = (await s.services.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND state NOT IN ('idle')`, [`${spareApp}%`])).rows[0].n;
        if (busy === 0) return;
        spare.kill('SIGCONT');
      }
    };
    await shapeTo('two');
    await drive('two', 3); // warm-up
    const got: Record<Shape, number[]> = { one: [], two: [] };
    const lat: Record<Shape, string[]> = { one: [], two: [] };
    const windows: Record<Shape, Window[]> = { one: [], two: [] };
    for (const shape of interleave(opts.rounds)) {
      await shapeTo(shape);
      const w = await p.window(pids);
      const r = await drive(shape, opts.seconds);
      windows[shape].push(await w.stop());
      got[shape].push(r.rate);
      lat[shape].push(`${Math.round(r.p50)}/${Math.round(r.p99)}`);
    }
    const cost: Partial<Record<Shape, PgDelta & { runs: number }>> = {};
    for (const shape of ['one', 'two'] as const) {
      await shapeTo(shape);
      cost[shape] = await counted(p, async () => (await drive(shape, 5)).all);
    }
    // Light load: idle workers, each job's NOTIFY wakes every idle consumer loop of every worker, and each
    // of them asks pg-boss for a job. Runs paced at 5/s, one at a time in flight mostly.
    const paced = async (shape: Shape, perSecond: number, seconds: number) => {
      const targets = shape === 'one' ? apis.slice(0, 1) : apis;
      const pending: Array<Promise<boolean>> = [];
      const t0 = performance.now();
      for (let i = 0; i < perSecond * seconds; i++) {
        const due = t0 + (i * 1000) / perSecond;
        if (due > performance.now()) await sleep(due - performance.now());
        pending.push(fetch(`${targets[i % targets.length]!.url}/v1/nodes/gpt_5_4/run`, { method: 'POST', headers: { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json', prefer: 'wait=30' }, body: JSON.stringify({ input: { prompt: `paced ${i}` } }) })
          .then(async (r) => ((await r.json()) as { status?: string }).status === 'COMPLETED'));
      }
      return (await Promise.all(pending)).filter(Boolean).length;
    };
    const light: Partial<Record<Shape, PgDelta & { runs: number }>> = {};
    for (const shape of ['one', 'two'] as const) {
      await shapeTo(shape);
      light[shape] = await counted(p, () => paced(shape, 5, 8));
    }
    await shapeTo('two');
    const fetches = (d: PgDelta & { runs: number }) => Object.entries(d.byStatement ?? {}).filter(([q]) => q.startsWith('WITH next as')).reduce((a, [, n]) => a + n, 0) / Math.max(1, d.runs);
    // What the deployment asks of PostgreSQL doing nothing (pg-boss polling and maintenance, the sweepers, key caches): per second.
    const idleSeconds = 30;
    const idle = await counted(p, async () => {
      await sleep(idleSeconds * 1000);
      return idleSeconds;
    });
    // Nothing lost: every run answered COMPLETED was captured exactly once.
    const captured = (await s.services.db.query(`SELECT count(*)::int AS n FROM (SELECT run_id FROM ledger_entries WHERE run_id = ANY($1) AND kind = 'capture' GROUP BY run_id HAVING count(*) = 1) x`, [ids])).rows[0].n;
    // Where a run's time goes: waiting for a worker to claim it, then the provider call and the settle.
    const spread = (await s.services.db.query(`SELECT
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS claim50,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS claim99,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000) AS run50,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000) AS run99
      FROM runs WHERE id = ANY($1)`, [ids])).rows[0];
    const one = median(got.one);
    const two = median(got.two);
    const scenario = `scale. scale-out: gateway${opts.intake !== undefined ? ` (ATELIER_WORKER_INTAKE ${opts.intake})` : ''}`;
    return [
      row({ scenario, metric: `remote runs completed/s end to end (provider answers in ${opts.providerMs} ms; ${opts.clients} clients with Prefer: wait), 2 API + 2 worker`, figure: two, unit: 'runs/s', baseline: one, baselineLabel: 'the same, 1 API + 1 worker', goal: '≥ 0.95 of 1 + 1: not slower (2 cores: no more CPU to gain)', met: two >= 0.95 * one && failures === 0 && captured === ids.length,
        note: `rounds one ${got.one.map((x) => Math.round(x)).join(', ')} / two ${got.two.map((x) => Math.round(x)).join(', ')} runs/s, ${pairedRatio(got)}; ${whereItStops(windows, got, cost)}; create→COMPLETED p50/p99 ms one ${lat.one.join(', ')} / two ${lat.two.join(', ')}; all rounds: created→RUNNING p50 ${Math.round(spread.claim50)} ms, p99 ${Math.round(spread.claim99)} ms, RUNNING→COMPLETED p50 ${Math.round(spread.run50)} ms, p99 ${Math.round(spread.run99)} ms; ${failures} not COMPLETED; ${captured} of ${ids.length} captured exactly once; ${describe(windows)}; load average ${os.loadavg().map((n) => round(n, 1)).join(', ')}` }),
      ...costRows(scenario, 'remote run', cost),
      light.two!.statements !== undefined
        ? row({ scenario, metric: `queue fetches (pg-boss fetch statements) per remote run at 5 runs/s paced, ${SHAPES.two}`, figure: fetches(light.two!), unit: 'fetches', baseline: fetches(light.one!), baselineLabel: SHAPES.one,
          note: `every job's NOTIFY wakes each idle consumer loop (ATELIER_WORKER_CONCURRENCY + ATELIER_WORKER_INTAKE per worker) of every worker, and each fetches; transactions per run at this rate ${round((light.two!.xacts + light.two!.rollbacks) / Math.max(1, light.two!.runs), 2)} / ${round((light.one!.xacts + light.one!.rollbacks) / Math.max(1, light.one!.runs), 2)}, statements ${round(light.two!.statements / Math.max(1, light.two!.runs), 2)} / ${round((light.one!.statements ?? 0) / Math.max(1, light.one!.runs), 2)}` })
        : row({ scenario, metric: `transactions per remote run at 5 runs/s paced, ${SHAPES.two}`, figure: (light.two!.xacts + light.two!.rollbacks) / Math.max(1, light.two!.runs), unit: 'tx', baseline: (light.one!.xacts + light.one!.rollbacks) / Math.max(1, light.one!.runs), baselineLabel: SHAPES.one, note: 'pg_stat_statements is not loaded: the queue fetches each job wakes are in these transactions' }),
      row({ scenario, metric: `idle load of the ${SHAPES.two} deployment: transactions/s`, figure: (idle.xacts + idle.rollbacks) / idleSeconds, unit: 'tx/s',
        note: `${idle.statements === undefined ? '' : `${round(idle.statements / idleSeconds, 1)} statements/s: ${Object.entries(idle.byStatement ?? {}).sort((x, y) => y[1] - x[1]).slice(0, 8).map(([t, n]) => `${t} ${round(n / idleSeconds, 2)}/s`).join('; ')}; `}WAL ${Math.round(idle.walBytes / idleSeconds)} bytes/s; ${idleSeconds} s with no request` }),
    ];
  } finally {
    for (const x of svc?.procs ?? []) x.child.kill('SIGCONT');
    await probe?.close();
    await svc?.stop();
    await fake.close();
  }
}

/** one, two, two, one, one, two, …: each shape as often first as second. */
function interleave(rounds: number): Shape[] {
  const out: Shape[] = [];
  for (let r = 0; r < rounds; r++) out.push(...(r % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const)));
  return out;
}

function median(xs: number[]): number {
  return percentile(xs, 50);
}

/**
 * Where it stops, in figures: CPU per run of Atelier's processes and of the database's backends (from the
 * rounds' samples ÷ the rounds' mean rate), and the WAL flushes one run cost (from the counted window).
 */
function whereItStops(windows: Record<Shape, Window[]>, got: Record<Shape, number[]>, cost: Partial<Record<Shape, PgDelta & { runs: number }>>): string {
  const per = (shape: Shape, pick: (k: string) => boolean) => {
    const ws = windows[shape];
    const cores = ws.reduce((a, w) => a + Object.entries(w.cpu).filter(([k]) => pick(k)).reduce((x, [, v]) => x + v, 0), 0) / Math.max(1, ws.length);
    const rate = got[shape].reduce((a, b) => a + b, 0) / Math.max(1, got[shape].length);
    return round((1000 * cores) / Math.max(1e-9, rate), 2);
  };
  const flushes = (shape: Shape) => round((cost[shape]?.walSyncs ?? Number.NaN) / Math.max(1, cost[shape]?.runs ?? 0), 2);
  return `where it stops: CPU per run (ms) of Atelier's processes ${per('one', (k) => k !== 'postgres')} / ${per('two', (k) => k !== 'postgres')} and of PostgreSQL's backends ${per('one', (k) => k === 'postgres')} / ${per('two', (k) => k === 'postgres')} (one / two), WAL flushes per run ${flushes('one')} / ${flushes('two')}: the machine's CPU left to these processes and the serial WAL flush bound both shapes (docs/deploy.md, "Scaling out")`;
}

/** two ÷ one of each round pair (adjacent in time, so the machine's drift cancels), their median. */
function pairedRatio(got: Record<Shape, number[]>): string {
  const r = got.one.map((o, i) => (got.two[i] ?? Number.NaN) / o).filter(Number.isFinite);
  return `paired rounds' ratios ${r.map((x) => round(x, 2)).join(', ')}, median ${round(median(r), 2)}`;
}

/**
 * The counters before and after `work` (which returns how many runs it completed), read once the backends
 * have reported: PostgreSQL 15 flushes a backend's statistics at most once a second, and an idle backend's
 * only after 10 s.
 */
async function counted(probe: Awaited<ReturnType<typeof pgProbe>>, work: () => Promise<number>): Promise<PgDelta & { runs: number }> {
  await sleep(11_000);
  const a = await probe.read();
  const runs = await work();
  await sleep(11_000);
  const b = await probe.read();
  return { ...(await probe.delta(a, b)), runs };
}

function costRows(scenario: string, what: string, cost: Partial<Record<Shape, PgDelta & { runs: number }>>, names: Record<Shape, string> = SHAPES): Row[] {
  const one = cost.one!;
  const two = cost.two!;
  const per = (d: PgDelta & { runs: number }, n: number) => n / Math.max(1, d.runs);
  const top = (d: PgDelta & { runs: number }, m: Record<string, number> | undefined, k: number) => Object.entries(m ?? {}).sort((x, y) => y[1] - x[1]).slice(0, k).map(([t, n]) => `${t} ${round(per(d, n), 2)}`).join('; ');
  const out = [
    row({ scenario, metric: `transactions per ${what} (pg_stat_database xact_commit + rollback), ${names.two}`, figure: per(two, two.xacts + two.rollbacks), unit: 'tx', baseline: per(one, one.xacts + one.rollbacks), baselineLabel: names.one, note: `counted over ${two.runs} and ${one.runs} runs; rollbacks ${round(per(two, two.rollbacks), 2)} / ${round(per(one, one.rollbacks), 2)}` }),
    row({ scenario, metric: `rows written per ${what} (pg_stat_user_tables ins + upd + del), ${names.two}`, figure: per(two, two.rowsWritten), unit: 'rows', baseline: per(one, one.rowsWritten), baselineLabel: names.one, note: `by table (2 + 2): ${top(two, two.rowsByTable, 12)}` }),
    row({ scenario, metric: `WAL per ${what}, ${names.two}`, figure: per(two, two.walBytes), unit: 'bytes', baseline: per(one, one.walBytes), baselineLabel: names.one, note: `pg_current_wal_lsn() difference, cluster-wide (exact only on a server nobody else writes to); WAL syncs per run ${round(per(two, two.walSyncs), 2)} / ${round(per(one, one.walSyncs), 2)}${two.walSyncMs !== undefined && one.walSyncMs !== undefined ? `, ${round(two.walSyncMs / Math.max(1, two.walSyncs), 2)} / ${round(one.walSyncMs / Math.max(1, one.walSyncs), 2)} ms each (pg_stat_wal wal_sync_time)` : ''}` }),
  ];
  if (two.statements !== undefined && one.statements !== undefined) {
    out.push(row({ scenario, metric: `statements per ${what} (pg_stat_statements calls), ${names.two}`, figure: per(two, two.statements), unit: 'statements', baseline: per(one, one.statements), baselineLabel: names.one, note: `most called (2 + 2, per run): ${top(two, two.byStatement, 10)} | (1 + 1): ${top(one, one.byStatement, 10)}` }));
  }
  return out;
}

/** The rounds' samples, per shape: CPU per process and of the database's backends, wait events, lock waits, connections. */
function describe(windows: Record<Shape, Window[]>, names: Record<Shape, string> = SHAPES): string {
  return (['one', 'two'] as const).map((shape) => {
    const ws = windows[shape];
    if (!ws.length) return '';
    const cpu: Record<string, number> = {};
    for (const w of ws) for (const [k, v] of Object.entries(w.cpu)) cpu[k] = (cpu[k] ?? 0) + v / ws.length;
    const total = Object.values(cpu).reduce((a, b) => a + b, 0);
    const active = ws.reduce((a, w) => a + w.active, 0);
    const samples = ws.reduce((a, w) => a + w.samples, 0);
    const waits: Record<string, number> = {};
    for (const w of ws) for (const [k, v] of Object.entries(w.waits)) waits[k] = (waits[k] ?? 0) + v;
    const conns: Record<string, number> = {};
    for (const w of ws) for (const [k, v] of Object.entries(w.peakConnections)) conns[k] = Math.max(conns[k] ?? 0, v);
    const waitText = Object.entries(waits).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${Math.round((100 * v) / Math.max(1, active))}%`).join(', ');
    return `${names[shape]}: CPU (cores) ${Object.entries(cpu).map(([k, v]) => `${k} ${round(v, 2)}`).join(', ')}, sum ${round(total, 2)} of ${os.cpus().length}; active backends ${round(active / Math.max(1, samples), 1)} on average, waiting on ${waitText}; lock waits ${ws.reduce((a, w) => a + w.lockWaits, 0)} of ${active} active samples; peak connections ${Object.entries(conns).map(([k, v]) => `${k} ${v}`).join(', ')}`;
  }).join(' | ');
}
