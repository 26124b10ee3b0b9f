import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import type { Services } from '../../src/services.js';
import { createServices } from '../../src/app/services.js';
import { spawnRole, type RoleProcess } from '../../test/helpers/processes.js';
import type { BenchPostgres } from './database.js';

type Role = 'all' | 'api' | 'worker' | 'deliverer';

/** A fresh database, the service's processes on it (real `atelier serve` children) and an in-process handle for setup and reads. */
export interface BenchService {
  procs: RoleProcess[];
  /** The first API process. */
  url: string;
  databaseUrl: string;
  services: Services;
  /** Users with one key each, limits at their maximum and plenty of credits (keys rotate to stay under 10,000 a minute each). */
  keys(n: number): Promise<Array<{ key: string; accountId: string }>>;
  stop(): Promise<void>;
}

let userCounter = 0;

/** `roleEnv`: variables for the processes of one role only (e.g. a smaller pool on workers, as docs/deploy.md advises). */
export async function startService(pg: BenchPostgres, roles: Role[], env: Record<string, string> = {}, roleEnv: Partial<Record<Role, Record<string, string>>> = {}): Promise<BenchService> {
  const database = await pg.fresh();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-data-'));
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir });
  let opened: Database | undefined;
  const procs: RoleProcess[] = [];
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await opened?.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    opened = await openDatabase(config, { poolSize: 4 });
    const services = await createServices(config, opened.db);
    const childEnv = {
      DATABASE_URL: database.url, DATA_DIR: dataDir, ATELIER_ALLOW_PRIVATE_URLS: '1',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ...env,
    };
    // BENCH_NODE_ARGS: extra node flags for the service's processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a scenario.
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
    for (const role of roles) {
      procs.push(await spawnRole(role, { ...childEnv, ...roleEnv[role] }, { readyBy: role === 'api' || role === 'all' ? 'http' : 'log', nodeArgs }));
    }
    return {
      procs,
      url: procs.find((p) => p.url)?.url ?? '',
      databaseUrl: database.url,
      services,
      async keys(n) {
        const out: Array<{ key: string; accountId: string }> = [];
        for (let i = 0; i < n; i++) {
          const user = await services.accounts.createUser({ email: `bench${++userCounter}-${process.pid}@example.com`, password: 'bench password 1' });
          await services.credits.grant(user.actingAccountId, 10n ** 14n);
          const k = await services.keys.create(user, { label: 'bench', perMinute: 10_000, perDay: 100_000 });
          out.push({ key: k.key, accountId: user.actingAccountId });
        }
        return out;
      },
      stop,
    };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

/** Resident memory (kB) and open file descriptors of a process, from /proc (Linux). */
export function processFootprint(pid: number): { rssKb: number; fds: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
    return { rssKb, fds };
  } catch {
    return undefined;
  }
}
