// Profiling aid: one API process under autocannon on one route, optionally with --cpu-prof (PROF=1), then
// `node bench/tools/profileSummary.mjs` lists where its CPU time went. Settings by env: P (path), M (method),
// BODY, C (connections), LL (log level), PROF.
//   PROF=1 P=/v1/models node --import tsx bench/tools/profileRoute.mts && node bench/tools/profileSummary.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgres } from '../lib/database.ts';
import { hammer } from '../lib/load.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { createServices } from '../../src/app/services.ts';
import { spawnRole } from '../../test/helpers/processes.ts';

const profDir = path.join(os.tmpdir(), 'atelier-prof');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-prof-data-'));
const pg = await findPostgres();
const db = await pg.fresh();
const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir });
const o = await openDatabase(config, { poolSize: 2 });
const s = await createServices(config, o.db);
const keys: string[] = [];
for (let i = 0; i < 20; i++) { const u = await s.accounts.createUser({ email: `p${i}@x.io`, password: 'password123' }); await s.credits.grant(u.actingAccountId, 10n ** 14n); keys.push((await s.keys.create(u, { label: 'b', perMinute: 10000, perDay: 100000 })).key); }
fs.rmSync(profDir, { recursive: true, force: true });
const p = await spawnRole('api', { DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: process.env.LL ?? 'info' }, { readyBy: 'http', nodeArgs: process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] });
const route = process.env.P ?? '/v1/models';
const x = await hammer({ url: p.url + route, connections: Number(process.env.C ?? 50), seconds: 8, keys, method: process.env.M ?? 'GET', body: process.env.BODY });
console.log('non2xx', x.non2xx, 'errors', x.errors);
console.log(route, Math.round(x.rps), x.p50);
await p.stop(); await o.close(); await db.drop(); await pg.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
