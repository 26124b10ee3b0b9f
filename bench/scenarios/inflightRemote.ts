import os from 'node:os';
import sharp from 'sharp';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { processFootprint, startService, type BenchService } from '../lib/service.js';
import { round, sleep } from '../lib/stats.js';
import { startGatedChat } from '../../test/helpers/providers/gatedChat.js';

/**
 * Issue 31 item 0, "waiting is not working": one worker process, `runs` concurrent remote runs (gpt_5_4
 * through the OpenAI adapter) against a fake OpenAI-compatible server that answers each call after
 * `answerMs`. Figure: seconds from the first create to the last run COMPLETED (goal ≤ 8 s for 1,000 × 5 s).
 * Baseline, same run: the same number of calls made to the fake directly, all at once. Also: the worker's
 * resident memory per run in flight (its peak during the wave less its idle figure, over the calls the
 * fake held at its peak), and a CPU-bound local run (a Ken Burns encode) queued in the middle of the wave:
 * its enqueue→RUNNING against the same run's on an idle service. Guarantees kept: every run is a durable
 * row with its reservation and job, leased and heartbeated, charged once (checked at the end); fsync on.
 */
export async function inflightRemote(pg: BenchPostgres, opts: { runs: number; answerMs: number; creators: number; intake: number }): Promise<Row[]> {
  const fake = await startGatedChat({ delayMs: opts.answerMs });
  const body = { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hello' }] };
  // Baseline: the provider alone, every call at once.
  const t0 = performance.now();
  await Promise.all(Array.from({ length: opts.runs }, () => fetch(`${fake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text())));
  const direct = (performance.now() - t0) / 1000;

  // The adapter's provider must answer GET /v1/models for the API's availability check too.
  Object.assign(process.env, { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench' });
  let svc: BenchService | undefined;
  try {
    svc = await startService(pg, ['api', 'worker'], {
      OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench',
      ATELIER_ACCOUNT_CONCURRENCY: '0', ATELIER_WORKER_INTAKE: String(opts.intake), ATELIER_PROVIDER_CONCURRENCY_OPENAI: String(opts.runs), ATELIER_REMOTE_INFLIGHT: String(opts.runs * 2),
    });
    const s = svc;
    // The local run is another account's: within one account the fair-share priority (queue/fairness.ts)
    // rightly puts a run behind that account's own earlier runs, which is not what this row measures.
    const [{ key }, { key: otherKey }] = (await s.keys(2)) as unknown as [{ key: string }, { key: string }];
    const workerPid = s.procs.find((p) => p.role === 'worker')!.child.pid!;
    const post = (path: string, b: unknown, as = key) => fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' }, body: JSON.stringify(b) });
    const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
    const localInput = { input: { image_url: `data:image/png;base64,${png.toString('base64')}`, duration: 2, width: 640, height: 360, fps: 24 } };

    // The local run on an idle service (its baseline), then one warm-up remote run so the wave measures steady state.
    const idleLocal = await startLatency(s, await runIdOf(post('/v1/nodes/ken_burns_video/run', localInput, otherKey)));
    await waitDone(s, [await runIdOf(post('/v1/nodes/gpt_5_4/run', { input: { prompt: 'warm-up' } }))], 60_000);
    await sleep(1000);
    const idleRss = processFootprint(workerPid)?.rssKb ?? Number.NaN;

    let peakRss = idleRss;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakRss = Math.max(peakRss, processFootprint(workerPid)?.rssKb ?? 0);
        await sleep(50);
      }
    })();
    const ids: string[] = [];
    const first = performance.now();
    let next = 0;
    let localId: string | undefined;
    await Promise.all(Array.from({ length: opts.creators }, async () => {
      while (next < opts.runs) {
        const i = next++;
        ids.push(await runIdOf(post('/v1/nodes/gpt_5_4/run', { input: { prompt: `wave ${i}` } })));
        if (i === Math.floor(opts.runs / 2)) localId = await runIdOf(post('/v1/nodes/ken_burns_video/run', localInput, otherKey));
      }
    }));
    const created = (performance.now() - first) / 1000;
    await waitDone(s, ids, 120_000);
    const total = (performance.now() - first) / 1000;
    sampling = false;
    await sampler;
    const busyLocal = await startLatency(s, localId!);
    const failed = (await s.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status <> 'COMPLETED'`, [ids])).rows[0].n;
    const ledger = (await s.services.db.query(`SELECT count(*)::int AS n FROM (SELECT run_id FROM ledger_entries WHERE run_id = ANY($1) AND kind = 'capture' GROUP BY run_id HAVING count(*) = 1) x`, [ids])).rows[0].n;
    // Where the time went: enqueue→RUNNING (the worker's intake) and RUNNING→COMPLETED (provider + settle).
    const spread = (await s.services.db.query(`SELECT
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)) AS claim_p50,
        max(extract(epoch FROM started_at - created_at)) AS claim_max,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at)) AS run_p50,
        max(extract(epoch FROM finished_at - started_at)) AS run_max
      FROM runs WHERE id = ANY($1)`, [ids])).rows[0];
    const spreadNote = `enqueue→RUNNING p50 ${round(Number(spread.claim_p50), 2)} s, max ${round(Number(spread.claim_max), 2)} s; RUNNING→COMPLETED p50 ${round(Number(spread.run_p50), 2)} s, max ${round(Number(spread.run_max), 2)} s`;
    const perRunKb = (peakRss - idleRss) / Math.max(1, fake.peakOpen);
    const scenario = 'h. in-flight remote runs';
    const note = `load average at the end ${os.loadavg().map((n) => round(n, 1)).join(', ')}; ${opts.runs} runs created in ${round(created, 2)} s by ${opts.creators} clients; provider held at most ${fake.peakOpen} calls at once; ${failed} not COMPLETED; ${ledger} of ${opts.runs} captured exactly once; one worker process, ATELIER_WORKER_CONCURRENCY 2, ATELIER_WORKER_INTAKE ${opts.intake}`;
    return [
      row({ scenario, metric: `${opts.runs} remote runs answering in ${opts.answerMs / 1000} s: first create → last COMPLETED`, figure: total, unit: 's', baseline: direct, baselineLabel: 'the same calls to the fake directly, s', goal: '≤ 8 s', met: total <= 8 && failed === 0, note }),
      // Apart from the creation rate (the API's, measured by row b): the worker's own part of the wave.
      row({ scenario, metric: `last create → last COMPLETED (the provider's ${opts.answerMs / 1000} s included)`, figure: total - created, unit: 's', baseline: opts.answerMs / 1000, baselineLabel: 'the provider\'s answer time, s', note: `the part of the wave after creation ends: provider answers, settles (capture, events) and any claims still under way; ${spreadNote}` }),
      row({ scenario, metric: 'worker resident memory per run in flight', figure: perRunKb, unit: 'KiB', note: `worker RSS idle ${Math.round(idleRss / 1024)} MiB, peak ${Math.round(peakRss / 1024)} MiB during the wave (remote adapters run in the worker; an engine child per call would cost a process each)` }),
      row({ scenario, metric: 'a CPU-bound local run (Ken Burns encode, another account) queued mid-wave: enqueue→RUNNING', figure: busyLocal, unit: 'ms', baseline: idleLocal, baselineLabel: 'the same run on an idle service, ms', goal: 'starts as soon as a CPU slot is free' }),
    ];
  } finally {
    await svc?.stop();
    await fake.close();
  }
}

async function runIdOf(res: Promise<Response>): Promise<string> {
  const r = await res;
  const text = await r.text();
  if (r.status !== 202) throw new Error(`create answered ${r.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { runId: string }).runId;
}

async function waitDone(svc: BenchService, ids: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = (await svc.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status IN ('COMPLETED', 'FAILED', 'CANCELED')`, [ids])).rows[0].n;
    if (n === ids.length) return;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${ids.length} runs ended in ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** enqueue→RUNNING of a run, once it has started (ms). */
async function startLatency(svc: BenchService, runId: string): Promise<number> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = (await svc.services.db.query(`SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`, [runId])).rows[0];
    if (r?.ms !== null && r?.ms !== undefined) return Number(r.ms);
    if (Date.now() > deadline) throw new Error(`run ${runId} did not start`);
    await sleep(20);
  }
}
