import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { processFootprint, startService } from '../lib/service.js';
import { sleep } from '../lib/stats.js';
import { startReceiver } from '../../test/helpers/receiver.js';

interface Sample { at: number; byRole: Array<{ role: string; pid: number; rssKb: number; fds: number }> }

/**
 * (f) Soak: `minutes` of mixed traffic (catalogue reads, balance reads, node runs with webhooks, status
 * polls, cancels, small workflow runs) on an API, a worker and a deliverer process, sampling each one's
 * resident memory and open file descriptors every 10 s. The first 2 minutes are warm-up (JIT, pools,
 * caches); the figure is the mean of the last 2 minutes' samples against the mean of the 2 after warm-up
 * (a fifth of the soak each, when it is shorter than 10 minutes).
 */
export async function soak(pg: BenchPostgres, opts: { minutes: number; concurrency: number }): Promise<Row[]> {
  const receiver = await startReceiver();
  const svc = await startService(pg, ['api', 'worker', 'deliverer']);
  const samples: Sample[] = [];
  try {
    const keys = (await svc.keys(8)).map((k) => k.key);
    const call = (key: string, method: string, p: string, body?: unknown) => fetch(svc.url + p, {
      method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => undefined) as any }));
    const wf = await call(keys[0]!, 'POST', '/v1/workflows/quick-create', { name: 'soak', requestFields: [{ name: 'text', type: 'text' }] });
    const started = Date.now();
    const end = started + opts.minutes * 60_000;
    const sampler = setInterval(() => {
      samples.push({ at: Date.now() - started, byRole: svc.procs.map((p) => ({ role: p.role, pid: p.child.pid!, ...(processFootprint(p.child.pid!) ?? { rssKb: Number.NaN, fds: Number.NaN }) })) });
    }, 10_000);
    let requests = 0;
    let failures = 0;
    let i = 0;
    // Received webhooks are only counted, not kept: the receiver's list would otherwise be what grows.
    const worker = async () => {
      while (Date.now() < end) {
        const key = keys[i++ % keys.length]!;
        const pick = i % 10;
        let res: { status: number; body: any };
        if (pick < 3) res = await call(key, 'GET', '/v1/models');
        else if (pick < 5) res = await call(key, 'GET', '/v1/credits/balance');
        else if (pick < 8) {
          res = await call(key, 'POST', '/v1/nodes/word_count/run', { input: { text: `soak ${i}` }, webhook: { url: receiver.url('/soak') } });
          if (res.status === 202) {
            requests++;
            res = pick === 7 ? await call(key, 'POST', `/v1/nodes/runs/${res.body.runId}/cancel`) : await call(key, 'GET', `/v1/nodes/runs/${res.body.runId}`);
          }
        } else if (pick === 8 && wf.body?.id) res = await call(keys[0]!, 'POST', '/v1/runs', { workflowId: wf.body.id, values: { [wf.body.requestNodeId]: { text: `soak ${i}` } } });
        else res = await call(key, 'GET', '/v1/nodes/runs?limit=5');
        requests++;
        if (res.status >= 500) failures++;
        if (receiver.received.length > 1000) receiver.received.splice(0, receiver.received.length);
        await sleep(5);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    clearInterval(sampler);
    const window = (from: number, to: number) => samples.filter((s) => s.at >= from && s.at < to);
    // Two minutes each (a fifth of a shorter soak): warm-up, then the early window, and the late one at the end.
    const span = Math.min(120_000, (opts.minutes * 60_000) / 5);
    const early = window(span, 2 * span);
    const late = window(opts.minutes * 60_000 - span, Number.POSITIVE_INFINITY);
    const rows: Row[] = [];
    for (const p of svc.procs) {
      const mean = (xs: Sample[], f: 'rssKb' | 'fds') => xs.map((s) => s.byRole.find((b) => b.pid === p.child.pid)![f]).reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
      const rss0 = mean(early, 'rssKb') / 1024;
      const rss1 = mean(late, 'rssKb') / 1024;
      const fd0 = mean(early, 'fds');
      const fd1 = mean(late, 'fds');
      rows.push(row({ scenario: `f. soak ${opts.minutes} min`, metric: `${p.role} process RSS at the end`, figure: rss1, unit: 'MiB', baseline: rss0, baselineLabel: 'RSS after warm-up, MiB', goal: 'within 10 %', met: Math.abs(rss1 / rss0 - 1) <= 0.1 }));
      rows.push(row({ scenario: `f. soak ${opts.minutes} min`, metric: `${p.role} process open descriptors at the end`, figure: fd1, unit: 'fds', baseline: fd0, baselineLabel: 'descriptors after warm-up', goal: 'no growth', met: fd1 <= fd0 + 2 }));
    }
    rows.push(row({ scenario: `f. soak ${opts.minutes} min`, metric: 'requests answered 5xx', figure: failures, unit: `of ${requests}`, goal: 'none', met: failures === 0 }));
    return rows;
  } finally {
    await svc.stop();
    await receiver.close();
  }
}
