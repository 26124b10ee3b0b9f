import os from 'node:os';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { percentile, round, sleep } from '../lib/stats.js';
import { startGatedChat } from '../../test/helpers/providers/gatedChat.js';
import { runDoctor } from '../../src/ops/doctor.js';
import { TAIL_TRIED } from './runCreate.js';

const CHAT = JSON.stringify({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hello' }] });

/**
 * Issue 31 item 1, gateway overhead measured the way gateways publish it: a local OpenAI-compatible fake that
 * answers every chat call in a fixed `answerMs`, and the same call made directly to it and through Atelier
 * (`POST /v1/nodes/gpt_5_4/run` with `Prefer: wait=60`, answered with the finished run), interleaved in the
 * same run: at each rate of `paced` (one direct and one Atelier request per tick) and at saturation (closed loops).
 * Added latency = Atelier's percentile − the direct calls' same percentile. The deployment is the one
 * `npm start` gives: one `atelier serve` process with every role, default settings but for the provider's
 * address. At the end every accepted run must be COMPLETED and captured exactly once, and `atelier doctor`'s
 * checks clean. Guarantees kept: fsync on; each run a durable row, reservation and job before the provider
 * call, leased and heartbeated, charged exactly once.
 */
export async function gatewayOverhead(pg: BenchPostgres, opts: { answerMs: number; paced: number[]; seconds: number; saturationClients: number }): Promise<Row[]> {
  const fake = await startGatedChat({ delayMs: opts.answerMs });
  let svc: BenchService | undefined;
  try {
    svc = await startService(pg, ['all'], { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench' });
    const s = svc;
    // Several accounts, as a gateway's traffic is: one account's concurrency limit (default 8) is not what is measured.
    const keys = (await s.keys(16)).map((k) => k.key);
    let k = 0;
    const ids: string[] = [];
    const refused: string[] = [];
    const direct = async (): Promise<number> => {
      const t0 = performance.now();
      const r = await fetch(`${fake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: CHAT });
      await r.text();
      return performance.now() - t0;
    };
    const viaAtelier = (): Promise<number> => atelierCall().catch((err: Error) => {
      refused.push(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`);
      return Number.NaN;
    });
    const atelierCall = async (): Promise<number> => {
      const t0 = performance.now();
      const r = await fetch(`${s.url}/v1/nodes/gpt_5_4/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[k++ % keys.length]}`, 'content-type': 'application/json', prefer: 'wait=60' },
        body: JSON.stringify({ input: { prompt: 'hello' } }),
      });
      const text = await r.text();
      const ms = performance.now() - t0;
      if (r.status !== 200) {
        refused.push(`${r.status} ${text.slice(0, 120)}`);
        return Number.NaN;
      }
      ids.push((JSON.parse(text) as { runId: string }).runId);
      return ms;
    };
    // Warm-up: connections, the engine's first call, JIT.
    for (let i = 0; i < 40; i++) await Promise.all([direct(), viaAtelier()]);
    ids.length = 0;

    const scenario = 'overhead. gateway overhead';
    const rows: Row[] = [];
    // Paced: one direct and one Atelier request per tick, open loop (a late answer does not delay the next).
    const paced = async (rate: number) => {
      const d: number[] = [];
      const a: number[] = [];
      const total = rate * opts.seconds;
      const pending: Promise<void>[] = [];
      const t0 = performance.now();
      for (let i = 0; i < total; i++) {
        const due = t0 + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        pending.push(direct().then((ms) => void d.push(ms)), viaAtelier().then((ms) => void (Number.isNaN(ms) || a.push(ms))));
      }
      await Promise.all(pending);
      const elapsed = (performance.now() - t0) / 1000;
      return { d, a, rate: a.length / elapsed };
    };
    for (const rate of opts.paced) {
      const p = await paced(rate);
      const added = (q: number) => percentile(p.a, q) - percentile(p.d, q);
      const pacedNote = `${p.a.length} Atelier and ${p.d.length} direct requests in ${opts.seconds} s (achieved ${round(p.rate, 1)} runs/s); direct p50/p95/p99 ${round(percentile(p.d, 50), 2)}/${round(percentile(p.d, 95), 2)}/${round(percentile(p.d, 99), 2)} ms, Atelier ${round(percentile(p.a, 50), 2)}/${round(percentile(p.a, 95), 2)}/${round(percentile(p.a, 99), 2)} ms`;
      rows.push(row({ scenario, metric: `added latency p50 at ${rate}/s (Prefer: wait, fake answering in ${opts.answerMs} ms)`, figure: added(50), unit: 'ms', baseline: percentile(p.d, 50), baselineLabel: 'direct call p50 ms', ...(rate === 200 ? { goal: '≤ 3 ms at 200/s', met: added(50) <= 3 } : {}), note: `${rate === 200 && added(50) > 3 ? `p50 missed by ${round(added(50) - 3, 1)} ms, p99 by ${round(added(99) - 15, 1)} ms; ${TAIL_TRIED} ` : ''}${pacedNote}` }));
      rows.push(row({ scenario, metric: `added latency p95 at ${rate}/s`, figure: added(95), unit: 'ms', baseline: percentile(p.d, 95), baselineLabel: 'direct call p95 ms' }));
      rows.push(row({ scenario, metric: `added latency p99 at ${rate}/s`, figure: added(99), unit: 'ms', baseline: percentile(p.d, 99), baselineLabel: 'direct call p99 ms', ...(rate === 200 ? { goal: '≤ 15 ms at 200/s', met: added(99) <= 15 } : {}) }));
    }

    // Saturation: closed loops, each sending its next request when the last answered; direct then Atelier.
    const closed = async (call: () => Promise<number>) => {
      const lat: number[] = [];
      const until = performance.now() + opts.seconds * 1000;
      await Promise.all(Array.from({ length: opts.saturationClients }, async () => {
        while (performance.now() < until) {
          const ms = await call();
          if (!Number.isNaN(ms)) lat.push(ms);
        }
      }));
      return { lat, rps: lat.length / opts.seconds };
    };
    const sd = await closed(direct);
    const sa = await closed(viaAtelier);
    rows.push(row({ scenario, metric: `throughput at saturation (${opts.saturationClients} clients, Prefer: wait)`, figure: sa.rps, unit: 'runs/s', baseline: sd.rps, baselineLabel: 'direct calls/s, same clients', note: `Atelier p50/p99 ${round(percentile(sa.lat, 50), 1)}/${round(percentile(sa.lat, 99), 1)} ms; direct ${round(percentile(sd.lat, 50), 1)}/${round(percentile(sd.lat, 99), 1)} ms` }));
    rows.push(row({ scenario, metric: 'added latency p50 at saturation', figure: percentile(sa.lat, 50) - percentile(sd.lat, 50), unit: 'ms' }));

    // Nothing lost: every accepted run ended COMPLETED and was captured exactly once; the doctor is clean.
    const notCompleted = (await s.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status <> 'COMPLETED'`, [ids])).rows[0].n as number;
    const capturedOnce = (await s.services.db.query(`SELECT count(*)::int AS n FROM (SELECT run_id FROM ledger_entries WHERE run_id = ANY($1) AND kind = 'capture' GROUP BY run_id HAVING count(*) = 1) x`, [ids])).rows[0].n as number;
    await sleep(500);
    const doctor = await runDoctor(s.services.db, { stuckAfterSeconds: 600 });
    const lost = `${ids.length} runs accepted: ${notCompleted} not COMPLETED, ${capturedOnce} captured exactly once, ${refused.length} refused${refused.length ? ` (${refused[0]})` : ''}; atelier doctor ${doctor.ok ? 'clean' : `found ${doctor.findings.length}: ${doctor.findings.slice(0, 3).map((f) => f.message).join('; ')}`}; load average ${os.loadavg().map((n) => round(n, 1)).join(', ')}`;
    rows.push(row({ scenario, metric: 'nothing lost (accepted runs not charged exactly once, doctor findings)', figure: ids.length - capturedOnce + notCompleted + doctor.findings.length, unit: 'runs', goal: '0', met: capturedOnce === ids.length && notCompleted === 0 && doctor.ok, note: lost }));
    return rows;
  } finally {
    await svc?.stop();
    await fake.close();
  }
}
