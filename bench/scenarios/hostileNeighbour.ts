import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { percentile, sleep } from '../lib/stats.js';

/** Latencies (ms) of sequential probes of `path` for `seconds`, a probe every 20 ms. */
async function probe(url: string, key: string, seconds: number): Promise<number[]> {
  const out: number[] = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    out.push(performance.now() - t0);
    await sleep(20);
  }
  return out;
}

/**
 * (g) A hostile neighbour: one `all` process (API and worker together, where engines used to share the
 * event loop) probed on /healthz and GET /v1/models while another tenant keeps hostile and heavy runs
 * going — markdown_to_html on 199,395 characters of growing backtick runs (24.6 s on the event loop
 * before engines moved to child processes), text_template blown up to 250 MB (refused OUTPUT_TOO_LARGE),
 * and a 1080p Ken Burns encode. Baseline: the same probes with the service idle. Goal: p99 ≤ 2×.
 */
export async function hostileNeighbour(pg: BenchPostgres, opts: { seconds: number }): Promise<Row[]> {
  const svc = await startService(pg, ['all'], { ATELIER_WORKER_CONCURRENCY: '3' });
  try {
    const [victim, attacker] = (await svc.keys(2)) as unknown as [{ key: string }, { key: string }];
    const targets = [`${svc.url}/healthz`, `${svc.url}/v1/models`];
    for (const t of targets) await probe(t, victim.key, 2); // warm-up
    const idle = await Promise.all(targets.map((t) => probe(t, victim.key, opts.seconds)));

    let backticks = '';
    for (let k = 1; k <= 630; k++) backticks += '`'.repeat(k) + 'a';
    const hostile = [
      { path: '/v1/nodes/markdown_to_html/run', input: { text: backticks } },
      { path: '/v1/nodes/text_template/run', input: { template: '{{text}}'.repeat(2500), text: 'a'.repeat(100_000) } },
      { path: '/v1/nodes/ken_burns_video/run', input: { image_url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', duration: 20, width: 1280, height: 720, fps: 30 } },
    ];
    let stop = false;
    let runs = 0;
    const attack = (async () => {
      let i = 0;
      while (!stop) {
        const h = hostile[i++ % hostile.length]!;
        const r = await fetch(`${svc.url}${h.path}`, { method: 'POST', headers: { authorization: `Bearer ${attacker.key}`, 'content-type': 'application/json', prefer: 'wait=30' }, body: JSON.stringify({ input: h.input }) });
        await r.arrayBuffer();
        runs++;
      }
    })();
    await sleep(1000);
    const busy = await Promise.all(targets.map((t) => probe(t, victim.key, opts.seconds)));
    stop = true;
    await attack;
    const rows: Row[] = [];
    ['GET /healthz', 'GET /v1/models'].forEach((name, i) => {
      const p99 = percentile(busy[i]!, 99);
      const base = percentile(idle[i]!, 99);
      rows.push(row({ scenario: 'g. hostile neighbour', metric: `${name} p99 under hostile runs`, figure: p99, unit: 'ms', baseline: base, baselineLabel: 'same probe, service idle', goal: '≤ 2× idle', met: p99 <= 2 * base, note: i === 0 ? `${runs} hostile runs created by the neighbour` : undefined }));
    });
    return rows;
  } finally {
    await svc.stop();
  }
}
