import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchPostgres } from '../lib/database.js';
import { hammer, type LoadResult } from '../lib/load.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { sleep } from '../lib/stats.js';

const HELLO = path.join(path.dirname(fileURLToPath(import.meta.url)), '../baseline/hello.mjs');

async function startHello(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [HELLO], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error('the hello-world baseline exited')));
  });
  return { url, stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.once('close', r)); } };
}

/**
 * (a) Authenticated GET /v1/models (key lookup, both rate windows, catalogue serialisation) against a bare
 * Fastify hello-world in its own process. Rounds alternate between the two so background load on a
 * shared machine falls on both alike; each side's figure is its mean over the rounds.
 */
export async function httpModels(pg: BenchPostgres, opts: { seconds: number; rounds: number; connections: number }): Promise<Row[]> {
  const svc = await startService(pg, ['api']);
  const hello = await startHello();
  try {
    const keys = (await svc.keys(20)).map((k) => k.key);
    // Warm both up (JIT, connection pools) before anything counts.
    await hammer({ url: hello.url, connections: opts.connections, seconds: 2 });
    await hammer({ url: `${svc.url}/v1/models`, connections: opts.connections, seconds: 2, keys });
    const models: LoadResult[] = [];
    const base: LoadResult[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      base.push(await hammer({ url: hello.url, connections: opts.connections, seconds: opts.seconds }));
      await sleep(500);
      models.push(await hammer({ url: `${svc.url}/v1/models`, connections: opts.connections, seconds: opts.seconds, keys }));
      await sleep(500);
    }
    const mean = (xs: LoadResult[], f: (x: LoadResult) => number) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
    const rps = mean(models, (x) => x.rps);
    const baseRps = mean(base, (x) => x.rps);
    const bad = models.reduce((a, x) => a + x.non2xx + x.errors, 0);
    return [
      row({ scenario: 'a. GET /v1/models', metric: 'requests/s (authenticated, rate-limited)', figure: rps, unit: 'req/s', baseline: baseRps, baselineLabel: 'bare Fastify hello-world req/s', goal: '≥ 50 % of baseline', met: rps / baseRps >= 0.5, note: bad ? `${bad} non-2xx or errors` : undefined }),
      row({ scenario: 'a. GET /v1/models', metric: 'latency p50', figure: mean(models, (x) => x.p50), unit: 'ms', baseline: mean(base, (x) => x.p50), baselineLabel: 'hello-world p50 ms' }),
      row({ scenario: 'a. GET /v1/models', metric: 'latency p99', figure: mean(models, (x) => x.p99), unit: 'ms', baseline: mean(base, (x) => x.p99), baselineLabel: 'hello-world p99 ms' }),
    ];
  } finally {
    await hello.stop();
    await svc.stop();
  }
}
