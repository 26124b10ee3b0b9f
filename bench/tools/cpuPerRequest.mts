// Measuring aid for a loaded machine: CPU time (user + system) an API process and the bare Fastify baseline
// spend per request on one route, read from /proc before and after a load, so other tenants' load does not
// blur the comparison as much as it blurs requests/s. Also the PostgreSQL transactions per request (each
// statement outside a transaction is one), which says how well the route's reads and counts are batched.
// Settings by env: P (path), C (connections), S (seconds).
//   P=/v1/credits/balance node --import tsx bench/tools/cpuPerRequest.mts
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPostgres } from '../lib/database.ts';
import { hammer } from '../lib/load.ts';
import { startService } from '../lib/service.ts';
import { rowOf } from '../../src/db/typed.ts';

const HELLO = path.join(path.dirname(fileURLToPath(import.meta.url)), '../baseline/hello.mjs');
const ticks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ms (USER_HZ 100)
};
const route = process.env.P ?? '/v1/credits/balance';
const connections = Number(process.env.C ?? 32);
const seconds = Number(process.env.S ?? 5);
const pg = await findPostgres();
const svc = await startService(pg, ['api'], { LOG_LEVEL: process.env.LL ?? 'info' });
const keys = (await svc.keys(connections)).map((k) => k.key);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cpu-'));
let bodyFile: string | undefined;
if (route === '/v1/models') {
  bodyFile = path.join(tmp, 'body.json');
  fs.writeFileSync(bodyFile, Buffer.from(await (await fetch(svc.url + route, { headers: { authorization: `Bearer ${keys[0]}` } })).arrayBuffer()));
}
const child = spawn(process.execPath, [HELLO], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(bodyFile ? { BODY_FILE: bodyFile } : {}) } });
const baseUrl = await new Promise<string>((resolve) => child.stdout!.on('data', (d) => { const m = /listening on (\S+)/.exec(String(d)); if (m) resolve(m[1]!); }));
// PostgreSQL publishes a backend's counts when it goes idle, at most once a second: read after a pause.
const commits = async () => {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const r = await rowOf<{ n: number }>(svc.services.db, `SELECT xact_commit::float8 AS n FROM pg_stat_database WHERE datname = current_database()`);
  return r!.n - 1; // this read's own transaction
};
const measure = async (pid: number, url: string, k?: string[]) => {
  await hammer({ url, connections, seconds: 2, keys: k, keyPerConnection: true });
  const x0 = await commits();
  const t0 = ticks(pid);
  const r = await hammer({ url, connections, seconds, keys: k, keyPerConnection: true });
  const ms = ticks(pid) - t0;
  const xacts = (await commits()) - x0;
  return { rps: Math.round(r.rps), cpuUsPerRequest: Math.round((ms * 1000) / r.total), pgTransactionsPerRequest: Number((xacts / r.total).toFixed(3)), non2xx: r.non2xx };
};
console.log('baseline', await measure(child.pid!, baseUrl));
console.log(route, await measure(svc.procs[0]!.child.pid!, svc.url + route, keys));
child.kill('SIGTERM');
await svc.stop();
await pg.stop();
fs.rmSync(tmp, { recursive: true, force: true });
