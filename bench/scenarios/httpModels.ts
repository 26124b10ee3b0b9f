import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchPostgres } from '../lib/database.js';
import { hammer, type LoadResult } from '../lib/load.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { sleep } from '../lib/stats.js';

const HELLO = path.join(path.dirname(fileURLToPath(import.meta.url)), '../baseline/hello.mjs');

/** A bare Fastify in its own process: hello-world, or exactly the bytes of `bodyFile` (baseline/hello.mjs). */
async function startBaseline(bodyFile?: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [HELLO], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(bodyFile ? { BODY_FILE: bodyFile } : {}) } });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error('the bare Fastify baseline exited')));
  });
  return { url, stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.once('close', r)); } };
}

interface Pair {
  scenario: string;
  url: string;
  baseUrl: string;
  baseLabel: string;
  goal: number;
}

/**
 * (a) Authenticated requests (key from the process's cache, both rate windows counted, the route's work)
 * against a bare Fastify in its own process, each over `connections` keep-alive connections, one key per
 * connection as real clients have:
 * - GET /v1/models (the catalogue, ~33 kB) against bare Fastify sending the very same bytes;
 * - GET /v1/credits/balance (a small body and a database read) against a bare hello-world.
 * Rounds alternate between a route and its baseline so background load on a shared machine falls on both
 * alike; each figure is its mean over the rounds.
 */
export async function httpModels(pg: BenchPostgres, opts: { seconds: number; rounds: number; connections: number }): Promise<Row[]> {
  const svc = await startService(pg, ['api']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-body-'));
  const baselines: Array<{ stop(): Promise<void> }> = [];
  try {
    // Fresh keys for every load (a route's warm-up and each of its rounds), so no key comes near its
    // 10,000 requests a minute at these rates and no 429 is what gets measured.
    const keySet = async () => (await svc.keys(opts.connections)).map((k) => k.key);
    const [probeKey] = await svc.keys(1);
    const catalogue = await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${probeKey!.key}` } });
    if (catalogue.status !== 200) throw new Error(`GET /v1/models answered ${catalogue.status}`);
    const bytes = Buffer.from(await catalogue.arrayBuffer());
    const bodyFile = path.join(tmp, 'models.json');
    fs.writeFileSync(bodyFile, bytes);
    const same = await startBaseline(bodyFile);
    baselines.push(same);
    const hello = await startBaseline();
    baselines.push(hello);
    const kB = Math.round(bytes.length / 1024);
    const pairs: Pair[] = [
      { scenario: 'a. GET /v1/models', url: `${svc.url}/v1/models`, baseUrl: same.url, baseLabel: `bare Fastify sending the same ${kB} kB, req/s`, goal: 0.85 },
      { scenario: 'a. GET /v1/credits/balance', url: `${svc.url}/v1/credits/balance`, baseUrl: hello.url, baseLabel: 'bare Fastify hello-world req/s', goal: 0.5 },
    ];
    const rows: Row[] = [];
    for (const pair of pairs) {
      const load = (url: string, seconds: number, keys?: string[]) => hammer({ url, connections: opts.connections, seconds, keys, keyPerConnection: true });
      // Warm both up (JIT, connection pools, key caches) before anything counts.
      await load(pair.baseUrl, 2);
      await load(pair.url, 2, await keySet());
      const route: LoadResult[] = [];
      const base: LoadResult[] = [];
      for (let r = 0; r < opts.rounds; r++) {
        const keys = await keySet();
        base.push(await load(pair.baseUrl, opts.seconds));
        await sleep(500);
        route.push(await load(pair.url, opts.seconds, keys));
        await sleep(500);
      }
      const mean = (xs: LoadResult[], f: (x: LoadResult) => number) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
      const rps = mean(route, (x) => x.rps);
      const baseRps = mean(base, (x) => x.rps);
      const bad = route.reduce((a, x) => a + x.non2xx + x.errors, 0);
      rows.push(
        row({ scenario: pair.scenario, metric: `requests/s (authenticated, rate-limited, ${opts.connections} connections, one key each)`, figure: rps, unit: 'req/s', baseline: baseRps, baselineLabel: pair.baseLabel, goal: `≥ ${Math.round(pair.goal * 100)} % of baseline (issue 31)`, met: rps / baseRps >= pair.goal, note: bad ? `${bad} non-2xx or errors` : undefined }),
        row({ scenario: pair.scenario, metric: 'latency p50', figure: mean(route, (x) => x.p50), unit: 'ms', baseline: mean(base, (x) => x.p50), baselineLabel: 'baseline p50 ms' }),
        row({ scenario: pair.scenario, metric: 'latency p99', figure: mean(route, (x) => x.p99), unit: 'ms', baseline: mean(base, (x) => x.p99), baselineLabel: 'baseline p99 ms' }),
      );
    }
    return rows;
  } finally {
    for (const b of baselines) await b.stop();
    await svc.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
