import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { startOpenAIFake } from '../../test/helpers/providers/openai.js';
import { createParser } from 'eventsource-parser';
import { percentile } from '../lib/stats.js';

const WORDS = Array.from({ length: 40 }, (_, i) => ` word${i}`);

/** Reads an event stream until `stop` says so for a message (its event and data); resolves when the stream ends or stop held. */
async function readEvents(res: Response, stop: (event: string, data: string) => boolean): Promise<void> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let stopped = false;
  const parser = createParser({ onEvent: (e) => { if (!stopped && e.data && stop(e.event ?? 'message', e.data)) stopped = true; } });
  try {
    while (!stopped) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(dec.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * (first-token) Time to first streamed token of a gpt_5_4 run as a client of Atelier sees it — from its
 * POST /v1/nodes/gpt_5_4/run to the first `run.output.delta` on the run's event stream — against the same
 * provider's own stream read directly (request to first content chunk), in the same run. The provider is the
 * local OpenAI-compatible fake made to think for `providerFirstTokenMs` before its first token (a real model's
 * time to first token), so the ratio says what Atelier adds: queue, worker, engine child, NOTIFY, SSE.
 * Medians over `rounds` (after one warm-up run); an API and a worker process, as deployed.
 */
export async function firstToken(pg: BenchPostgres, opts: { rounds: number; providerFirstTokenMs: number }): Promise<Row[]> {
  const fake = await startOpenAIFake({ models: ['gpt-5.4'], answer: WORDS, gapMs: 10, firstTokenMs: opts.providerFirstTokenMs });
  const svc = await startService(pg, ['api', 'worker'], { OPENAI_BASE_URL: `${fake.url}/v1`, ATELIER_ALLOW_PRIVATE_URLS: '1' }).catch(async (err) => {
    await fake.close();
    throw err;
  });
  try {
    const key = (await svc.keys(1))[0]!.key;
    const auth = { authorization: `Bearer ${key}` };

    const provider = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${fake.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ model: 'gpt-5.4', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      let t1 = Number.NaN;
      await readEvents(res, (_e, data) => {
        if (data === '[DONE]') return true;
        if (!JSON.parse(data).choices?.[0]?.delta?.content) return false;
        t1 = performance.now();
        return true;
      });
      return t1 - t0;
    };

    /** Atelier's time to first delta, and whether that delta was the run's first (index 0: the stream was open in time). */
    const atelier = async (): Promise<{ ms: number; first: boolean }> => {
      const t0 = performance.now();
      const created = await fetch(`${svc.url}/v1/nodes/gpt_5_4/run`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ input: { prompt: 'hi' } }) });
      const { runId } = (await created.json()) as { runId: string };
      if (created.status !== 202) throw new Error(`POST /v1/nodes/gpt_5_4/run answered ${created.status}`);
      const res = await fetch(`${svc.url}/v1/nodes/runs/${runId}/events`, { headers: auth });
      let out = { ms: Number.NaN, first: false };
      let failed: string | undefined;
      await readEvents(res, (event, data) => {
        if (event === 'run.output.delta' && Number.isNaN(out.ms)) out = { ms: performance.now() - t0, first: JSON.parse(data).index === 0 };
        if (event === 'run.failed') failed = data;
        return event === 'run.completed' || event === 'run.failed' || event === 'run.canceled';
      });
      if (failed) throw new Error(`the run failed: ${failed.slice(0, 300)}`);
      return out;
    };

    await atelier(); // warm-up: the engine child, the connections, the caches
    const own: number[] = [];
    const ours: number[] = [];
    let late = 0;
    for (let i = 0; i < opts.rounds; i++) {
      own.push(await provider());
      const a = await atelier();
      if (Number.isNaN(a.ms)) throw new Error('a run streamed no delta');
      ours.push(a.ms);
      if (!a.first) late++;
    }
    const figure = percentile(ours, 50);
    const baseline = percentile(own, 50);
    return [row({
      scenario: 'first-token', metric: `time to first streamed token of a gpt_5_4 run (median of ${opts.rounds}; provider thinks ${opts.providerFirstTokenMs} ms)`, figure, unit: 'ms',
      baseline, baselineLabel: 'the fake provider\'s own stream, request to first token, ms', goal: '≤ 1.5 × the provider\'s own', met: figure <= 1.5 * baseline,
      note: `Atelier's figure runs from POST /v1/nodes/gpt_5_4/run to the first run.output.delta on the run's SSE stream (opened right after the POST), through an API and a worker process; ${late} of ${opts.rounds} streams opened after the first delta had gone (their figure is a later delta's).`,
    })];
  } finally {
    await svc.stop();
    await fake.close();
  }
}
