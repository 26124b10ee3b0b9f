import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledState } from '../../scripts/build.mjs';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { percentile, sleep } from '../lib/stats.js';

const median = (v: number[]) => percentile(v, 50);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/atelier.mjs');
const MB = 1024 * 1024;

/** Resident bytes of `pid` and of every process below it (children, their ffmpeg, …), from /proc. */
export function treeResident(pid: number): { self: number; tree: number; processes: number } {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name, which may itself hold spaces and parentheses.
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const rss = (p: number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      return 0;
    }
  };
  const inTree = (p: number): boolean => {
    for (let q: number | undefined = p; q !== undefined && q > 1; q = parent.get(q)) if (q === pid) return true;
    return false;
  };
  const members = [...parent.keys()].filter(inTree);
  return { self: rss(pid), tree: members.reduce((s, p) => s + rss(p), 0), processes: members.length };
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `npm start`'s command (node bin/atelier.mjs serve, role all) on `dataDir`; resolves once /readyz answers 200. */
async function start(env: Record<string, string>): Promise<{ child: ChildProcess; readyMs: number; stop(): Promise<number | null> }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`atelier serve exited with ${child.exitCode} before it was ready`);
    if (performance.now() - t0 > 180_000) {
      child.kill('SIGKILL');
      throw new Error('atelier serve was not ready in 180 s');
    }
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    await sleep(25);
  }
  const readyMs = performance.now() - t0;
  return {
    child,
    readyMs,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

/** Time from fork of an engine child (childPool.ts's entry) to its `ready` message, compiled or through tsx. */
async function childColdStart(compiled: boolean): Promise<number> {
  const entry = path.join(ROOT, compiled ? 'build' : '', 'src/execution/childEntry.mjs');
  const t0 = performance.now();
  const child = fork(entry, [], { execArgv: [], env: { ...process.env, ATELIER_ENGINE_CHILD: '1' }, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  try {
    return await new Promise<number>((resolve, reject) => {
      child.on('message', (m: { t?: string }) => m?.t === 'ready' && resolve(performance.now() - t0));
      child.on('exit', (code) => reject(new Error(`engine child exited with ${code} before ready`)));
    });
  } finally {
    child.kill('SIGKILL');
  }
}

/**
 * (deploy) What an operator sees at start (issue 30): start to /readyz on an initialised data folder and
 * the engine child's cold start, compiled (build/) against the sources through tsx (ATELIER_DEV=1) in the
 * same run; the resident memory of `npm start`'s whole process tree and of the API process alone, idle
 * once the start-up work is done, against the goals of 500 MB and 300 MB.
 */
export async function footprint(pg: BenchPostgres, opts: { rounds: number; settleSeconds: number }): Promise<Row[]> {
  if (compiledState() !== 'current') throw new Error('build/ is not current: run `npm run build` first');
  const db = await pg.fresh();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-deploy-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  try {
    // First start initialises the data folder and the database (migrations); not measured.
    await (await start(env)).stop();
    const ready: Record<'compiled' | 'tsx', number[]> = { compiled: [], tsx: [] };
    for (let i = 0; i < opts.rounds; i++) {
      for (const mode of ['compiled', 'tsx'] as const) {
        const s = await start({ ...env, ...(mode === 'tsx' ? { ATELIER_DEV: '1' } : {}) });
        ready[mode].push(s.readyMs);
        await s.stop();
      }
    }
    // Idle memory: started as `npm start` starts it (the defaults, so the start-up model check runs only
    // when the default says so), left alone until the start-up work is done.
    const s = await start(env);
    await sleep(opts.settleSeconds * 1000);
    const idle = treeResident(s.child.pid!);
    const code = await s.stop();
    const cold = { compiled: [] as number[], tsx: [] as number[] };
    for (let i = 0; i < opts.rounds; i++) {
      cold.compiled.push(await childColdStart(true));
      cold.tsx.push(await childColdStart(false));
    }
    return [
      row({ scenario: 'deploy', metric: 'start to /readyz, initialised data folder (median)', figure: median(ready.compiled), unit: 'ms', baseline: median(ready.tsx), baselineLabel: 'sources through tsx', note: `${opts.rounds} rounds each, alternating` }),
      row({ scenario: 'deploy', metric: 'engine child cold start, fork to ready (median)', figure: median(cold.compiled), unit: 'ms', baseline: median(cold.tsx), baselineLabel: 'sources through tsx' }),
      row({ scenario: 'deploy', metric: 'idle resident memory, whole npm start process tree', figure: idle.tree / MB, unit: 'MB', goal: '< 500 MB', met: idle.tree < 500 * MB, note: `${idle.processes} processes, ${opts.settleSeconds} s after ready; stopped with exit code ${code}` }),
      row({ scenario: 'deploy', metric: 'idle resident memory, API process alone', figure: idle.self / MB, unit: 'MB', goal: '< 300 MB', met: idle.self < 300 * MB }),
    ];
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}
