import sharp from 'sharp';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { percentile, sleep } from '../lib/stats.js';

/**
 * Fair shares between accounts (issue 15). Account B creates small runs one after another and each one's
 * enqueue→RUNNING (started_at − created_at) is taken from the run record; first with an idle service (the
 * baseline), then while account A holds a backlog of slow runs (Ken Burns encodes) queued before them.
 * Goal: B's p50 with A's backlog ≤ 3× B's p50 without it. Measured at the per-account limit given
 * (`accountConcurrency`; the default configuration is 8, which on a 2-slot worker leaves fairness to the
 * queue's priorities alone: B then waits for at most the A run ahead of it on a slot).
 */
export async function fairness(pg: BenchPostgres, opts: { bRuns: number; aBacklog: number; workerConcurrency: number; accountConcurrency: number }): Promise<Row[]> {
  const svc = await startService(pg, ['all'], {
    ATELIER_WORKER_CONCURRENCY: String(opts.workerConcurrency),
    ATELIER_ACCOUNT_CONCURRENCY: String(opts.accountConcurrency),
  });
  try {
    const [a, b] = (await svc.keys(2)) as unknown as [{ key: string }, { key: string }];
    const idle = await bLatencies(svc, b.key, opts.bRuns, 'idle');
    const png = await sharp({ create: { width: 640, height: 360, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
    const image = `data:image/png;base64,${png.toString('base64')}`;
    for (let i = 0; i < opts.aBacklog; i++) {
      const r = await post(svc, a.key, '/v1/nodes/ken_burns_video/run', { input: { image_url: image, duration: 20, width: 1280, height: 720, fps: 30 } });
      if (r.status !== 202) throw new Error(`A's run answered ${r.status}`);
    }
    // A's first runs are on the engine slots before B starts.
    await waitFor(async () => (await svc.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE status = 'RUNNING'`)).rows[0].n >= 1);
    const loaded = await bLatencies(svc, b.key, opts.bRuns, 'loaded');
    const left = (await svc.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE status = 'QUEUED' AND node_type = 'ken_burns_video'`)).rows[0].n;
    const p50 = percentile(loaded, 50);
    const base = percentile(idle, 50);
    const label = `account limit ${opts.accountConcurrency || 'off'}, ${opts.workerConcurrency} engine slots`;
    return [
      row({ scenario: 'g. fairness', metric: `B enqueue→RUNNING p50 while A holds ${opts.aBacklog} slow runs (${label}; ${left} of A's still queued at the end)`, figure: p50, unit: 'ms', baseline: base, baselineLabel: 'B p50 with no backlog, ms', goal: '≤ 3× baseline', met: p50 <= 3 * base }),
      row({ scenario: 'g. fairness', metric: `B enqueue→RUNNING p99 while A holds its backlog (${label})`, figure: percentile(loaded, 99), unit: 'ms', baseline: percentile(idle, 99), baselineLabel: 'B p99 with no backlog, ms' }),
    ];
  } finally {
    await svc.stop();
  }
}

async function post(svc: BenchService, key: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${svc.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

/** B's runs one at a time, each waited for until it ends; returns their enqueue→RUNNING in ms. */
async function bLatencies(svc: BenchService, key: string, n: number, tag: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await post(svc, key, '/v1/nodes/word_count/run', { input: { text: `b ${tag} ${i}` } });
    if (r.status !== 202) throw new Error(`B's run answered ${r.status}`);
    const { runId } = (await r.json()) as { runId: string };
    let ms: number | undefined;
    await waitFor(async () => {
      const x = (await svc.services.db.query(`SELECT status, extract(epoch FROM started_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`, [runId])).rows[0];
      if (x && ['COMPLETED', 'FAILED', 'CANCELED'].includes(x.status)) ms = Number(x.ms);
      return ms !== undefined;
    });
    out.push(ms!);
  }
  return out;
}
