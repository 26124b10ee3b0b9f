// `npm run bench`: starts Atelier's own processes on a fresh database (the local PostgreSQL when it
// answers, else an embedded one) and measures each scenario of issue #10 against a baseline taken in the
// same run. Results: bench/results/latest.{json,md} plus a dated copy of each.
//   npm run bench                       every scenario but the soak, upload throughput included (a few minutes)
//   npm run bench -- --only a,c         some scenarios
//   npm run bench -- --soak [MINUTES]   also the soak (20 minutes by default; not part of CI)
//   npm run bench -- --fuzz-cases N     fuzz case count (10,000 by default)
//   npm run bench -- --name soak        write results/soak.{json,md} instead of latest.*
//   npm run bench -- --only scale --scale-part gateway [--scale-clients N] [--scale-intake N]
//                                       one half of the scale-out scenario (create|gateway), its clients, the workers' ATELIER_WORKER_INTAKE
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPostgres } from './lib/database.js';
import { machine, writeReport, type Report, type Row } from './lib/report.js';
import { httpModels } from './scenarios/httpModels.js';
import { runCreate } from './scenarios/runCreate.js';
import { chainWorkflow } from './scenarios/chainWorkflow.js';
import { webhooks } from './scenarios/webhooks.js';
import { fuzz } from './scenarios/fuzz.js';
import { soak } from './scenarios/soak.js';
import { fairness } from './scenarios/fairness.js';
import { hostileNeighbour } from './scenarios/hostileNeighbour.js';
import { uploadThroughput } from './scenarios/uploadThroughput.js';
import { footprint } from './scenarios/footprint.js';
import { traces } from './scenarios/traces.js';
import { firstToken } from './scenarios/firstToken.js';
import { inflightRemote } from './scenarios/inflightRemote.js';
import { budgetCheck } from './scenarios/budgetCheck.js';
import { gatewayOverhead } from './scenarios/gatewayOverhead.js';
import { scaleOut } from './scenarios/scaleOut.js';

const args = process.argv.slice(2);
// `npm run bench -- --models`: the model quality and speed benchmark (bench/models.ts), on its own.
if (args.includes('--models')) {
  await import('./models.js');
}
const flag = (name: string) => args.indexOf(`--${name}`);
const value = (name: string, fallback: number) => {
  const i = flag(name);
  const v = i >= 0 ? Number(args[i + 1]) : Number.NaN;
  return Number.isFinite(v) ? v : fallback;
};
const only = flag('only') >= 0 ? new Set(String(args[flag('only') + 1]).split(',')) : undefined;
const soakMinutes = flag('soak') >= 0 ? value('soak', 20) : 0;
const wanted = (s: string) => (only ? only.has(s) : s !== 'f' || soakMinutes > 0);
const seconds = value('seconds', 10);
const fuzzCases = value('fuzz-cases', 10_000);
const fuzzSeed = value('fuzz-seed', Date.now() % 2 ** 31);

const pg = await findPostgres();
const startedAt = new Date().toISOString();
const report: Report = { startedAt, finishedAt: '', command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`, machine: machine(pg.where), rows: [], notes: [] };
const scenarios: Array<[string, string, () => Promise<Row[]>]> = [
  ['a', 'authenticated GET /v1/models vs the same bytes from bare Fastify; GET /v1/credits/balance vs hello-world', () => httpModels(pg, { seconds, rounds: 2, connections: 32 })],
  ['b', 'run creation rate and enqueue→RUNNING latency', () => runCreate(pg, { seconds, connections: 20, paced: [20, 200] })],
  ['overhead', 'gateway overhead: Prefer: wait runs through Atelier vs the same calls to a fake provider answering in 20 ms', () => gatewayOverhead(pg, { answerMs: 20, paced: [50, value('overhead-rate', 200)], seconds, saturationClients: 64 })],
  ['c', '100-node chain and fan-out/fan-in workflows: overhead and cached re-runs', () => chainWorkflow(pg)],
  ['d', 'webhook deliveries/s and event→first-attempt latency', () => webhooks(pg, { backlog: 3000, pacedRuns: 100 })],
  ['e', `fuzzing, ${fuzzCases} cases`, () => fuzz(pg, { cases: fuzzCases, seed: fuzzSeed })],
  ['f', `soak, ${soakMinutes} minutes of mixed load`, () => soak(pg, { minutes: soakMinutes, concurrency: 8 })],
  ['fairness', 'fair shares: B\'s enqueue→RUNNING while A holds a backlog', () => fairness(pg, { bRuns: 15, aBacklog: 6, workerConcurrency: 2, accountConcurrency: 1 })],
  ['deploy', 'start to ready, engine child cold start (compiled vs tsx), idle memory after npm start', () => footprint(pg, { rounds: value('rounds', 3), settleSeconds: 20 })],
  ['g', 'hostile neighbour: /healthz and GET /v1/models p99 while hostile and heavy runs execute', () => hostileNeighbour(pg, { seconds })],
  ['inflight', 'in-flight remote runs: 1,000 × 5 s provider calls through one worker process', () => inflightRemote(pg, { runs: value('inflight-runs', 1000), answerMs: 5000, creators: 32, intake: value('inflight-intake', 6) })],
  ['budget', 'cost of the spend-limit check on run creation: creates/s with budgets set vs without', () => budgetCheck(pg, { seconds, connections: 20, rounds: value('rounds', 3) })],
  ['upload', 'upload throughput: POST /v1/files to the local store vs copying the bytes on disk', () => uploadThroughput(pg, { megabytes: 256, rounds: 2 })],
  ['traces', 'run creation with OpenTelemetry traces on (exported to a local OTLP sink) vs off', () => traces(pg, { seconds, connections: 20, rounds: value('rounds', 2) })],
  ['scale', 'scale-out: run creation and remote runs through 2 API + 2 worker processes vs 1 + 1, with what each run costs PostgreSQL', () => scaleOut(pg, { seconds, rounds: value('rounds', 3), connections: 20, clients: value('scale-clients', 32), providerMs: 20, parts: flag('scale-part') >= 0 ? String(args[flag('scale-part') + 1]) : undefined, intake: flag('scale-intake') >= 0 ? value('scale-intake', 0) : undefined })],
  ['first-token', 'time to first streamed token: Atelier\'s run event stream vs the fake provider\'s own stream', () => firstToken(pg, { rounds: 9, providerFirstTokenMs: 300 })],
];
try {
  for (const [id, title, run] of scenarios) {
    if (!wanted(id)) continue;
    console.log(`== ${id}. ${title}`);
    const t0 = Date.now();
    try {
      const rows = await run();
      report.rows.push(...rows);
      for (const r of rows) console.log(`   ${r.metric}: ${r.figure.toFixed(2)} ${r.unit}${r.baseline !== undefined ? ` (baseline ${r.baseline.toFixed(2)}, ratio ${r.ratio})` : ''}${r.met === undefined ? '' : r.met ? ' — goal met' : ' — goal NOT met'}`);
    } catch (err) {
      console.error(`   scenario ${id} failed:`, err);
      report.notes.push(`scenario ${id} (${title}) failed: ${(err as Error).message.split('\n')[0]}`);
    }
    console.log(`   (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
} finally {
  await pg.stop();
}
report.finishedAt = new Date().toISOString();
const name = flag('name') >= 0 ? String(args[flag('name') + 1]).replace(/[^\w-]/g, '') : 'latest';
const files = writeReport(path.join(path.dirname(fileURLToPath(import.meta.url)), 'results'), report, name);
console.log(`wrote ${files.join(', ')}`);
process.exit(report.notes.some((n) => / failed: /.test(n)) ? 1 : 0);
