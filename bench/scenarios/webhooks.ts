import http from 'node:http';
import { newId } from '../../src/ids.js';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { percentile, sleep } from '../lib/stats.js';
import { startReceiver } from '../../test/helpers/receiver.js';

/** The bench process POSTing the same body to the same receiver, `concurrency` at a time: loopback's own floor. */
async function loopbackPosts(url: string, body: string, total: number, concurrency: number): Promise<{ perSecond: number; latencies: number[] }> {
  const agent = new http.Agent({ keepAlive: false });
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < total) {
      const s = performance.now();
      await new Promise<void>((resolve, reject) => {
        const r = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        r.on('error', reject);
        r.end(body);
      });
      latencies.push(performance.now() - s);
    }
  }));
  return { perSecond: total / ((performance.now() - t0) / 1000), latencies };
}

/**
 * (d) Webhooks. Throughput: a deliverer process drains a backlog of due deliveries (events written straight
 * into the outbox, so only delivery is measured) to a loopback receiver, against the bench process posting
 * the same bodies with the deliverer's concurrency. Latency: runs with webhooks on a whole service, from
 * each event's creation to its first attempt arriving, against one loopback POST.
 */
export async function webhooks(pg: BenchPostgres, opts: { backlog: number; pacedRuns: number }): Promise<Row[]> {
  const rows: Row[] = [];
  const receiver = await startReceiver();
  try {
    const svc = await startService(pg, ['deliverer']);
    try {
      const { accountId } = (await svc.keys(1))[0]!;
      const db = svc.services.db;
      const sample = { success: true, type: 'run.completed', runId: 'run_x', workflowId: 'word_count', data: { status: 'COMPLETED', outputs: { words: 2 } }, metadata: null, error: null, createdAt: new Date().toISOString() };
      const body = JSON.stringify(sample);
      await db.tx(async (tx) => {
        for (let i = 0; i < opts.backlog; i += 500) {
          const n = Math.min(500, opts.backlog - i);
          const ids = Array.from({ length: n }, () => newId('evt'));
          const runs = Array.from({ length: n }, () => newId('run'));
          await tx.query(`INSERT INTO events (event_id, account_id, run_id, type, payload) SELECT e, $3, r, 'run.completed', $4 FROM unnest($1::text[], $2::text[]) AS t(e, r)`, [ids, runs, accountId, sample]);
          await tx.query(`INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, status, next_attempt_at) SELECT e, $3, r, $4, 'pending', now() FROM unnest($1::text[], $2::text[]) AS t(e, r)`, [ids, runs, accountId, receiver.url('/drain')]);
        }
        await tx.query(`SELECT pg_notify('atelier_deliveries', '')`);
      });
      const t0 = Date.now();
      await receiver.waitFor((all) => all.filter((r) => r.path === '/drain').length >= opts.backlog, 300_000);
      const perSecond = opts.backlog / ((Date.now() - t0) / 1000);
      const base = await loopbackPosts(receiver.url('/baseline'), body, opts.backlog, svc.services.config.deliveryConcurrency);
      rows.push(row({ scenario: 'd. webhooks', metric: `deliveries/s (backlog of ${opts.backlog}, one deliverer process)`, figure: perSecond, unit: '/s', baseline: base.perSecond, baselineLabel: `bare loopback POSTs/s, ${svc.services.config.deliveryConcurrency} at a time`, goal: '≥ 500/s', met: perSecond >= 500 }));
    } finally {
      await svc.stop();
    }

    const svc2 = await startService(pg, ['all']);
    try {
      const key = (await svc2.keys(1))[0]!.key;
      const path = '/paced';
      for (let i = 0; i < opts.pacedRuns; i++) {
        const r = await fetch(`${svc2.url}/v1/nodes/word_count/run`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: { text: `paced ${i}` }, webhook: { url: receiver.url(path) } }) });
        if (r.status !== 202) throw new Error(`run create answered ${r.status}`);
        await sleep(50);
      }
      await receiver.waitFor((all) => all.filter((r) => r.path === path).length >= opts.pacedRuns * 2, 120_000);
      const lat = receiver.forPath(path).map((r) => r.at - Date.parse(r.json.createdAt));
      const one = await loopbackPosts(receiver.url('/baseline2'), JSON.stringify(receiver.forPath(path)[0]!.json), 200, 1);
      rows.push(row({ scenario: 'd. webhooks', metric: `event→first attempt p50 (${opts.pacedRuns} runs, 2 events each)`, figure: percentile(lat, 50), unit: 'ms', baseline: percentile(one.latencies, 50), baselineLabel: 'one loopback POST p50 ms', goal: '≤ 100 ms', met: percentile(lat, 50) <= 100 }));
      rows.push(row({ scenario: 'd. webhooks', metric: 'event→first attempt p99', figure: percentile(lat, 99), unit: 'ms', baseline: percentile(one.latencies, 99), baselineLabel: 'one loopback POST p99 ms' }));
    } finally {
      await svc2.stop();
    }
  } finally {
    await receiver.close();
  }
  return rows;
}
