#!/usr/bin/env node
// The test command (`npm test`): finds a PostgreSQL for the tests, then runs node's test runner over
// test/**/*.test.ts. Each test file creates and drops its own database on that server.
//   1. TEST_DATABASE_URL or DATABASE_URL, when set;
//   2. else the server on 127.0.0.1:5432, when it answers;
//   3. else an embedded PostgreSQL started in a temporary folder (so a machine with no server still runs everything).
// Extra arguments are test files, folders or name filters: `npm test -- test/api/auth.test.ts`,
// `npm test -- test/unit`, `npm test -- 'rate limits'`.
//
// The files run in three phases, in this order (README, "Tests"):
//   unit      test/unit: pure code, no database or server; one file per core side by side.
//   shared    test/api, test/compat, test/cli, test/sdk, test/engines, test/web and test/system but for the
//             files below: each starts its own Atelier(s) on a database of its own, on ports the OS picks,
//             and polls with generous limits, so three run side by side (ATELIER_TEST_CONCURRENCY, default 3:
//             most of a file's time is waiting on child processes and polls, so a third fills idle cores).
//   alone     the system tests whose point is a measure of the machine (memory, fairness or throughput under
//             load, 1,000 concurrent requests, a container build): one at a time, nothing else running.
// A failing phase does not stop the next; the exit code is 1 if any failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

async function answers(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function listTests(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTests(p));
    else if (entry.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

let adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
let embedded;
let tmp;
if (!adminUrl && (await answers('postgres://postgres@127.0.0.1:5432/postgres'))) {
  adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  console.log('tests use the PostgreSQL server on 127.0.0.1:5432');
}
if (!adminUrl) {
  const { register } = await import('tsx/esm/api');
  register();
  const { startEmbedded } = await import('../src/db/embedded.ts');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-pg-'));
  fs.chmodSync(tmp, 0o755);
  embedded = await startEmbedded(tmp);
  adminUrl = embedded.url;
  console.log(`no PostgreSQL on 127.0.0.1:5432: tests use an embedded server in ${tmp}`);
}

// The web app's workflow editor bundle (dist/editor), built once here rather than by each test server.
await (await import('./build-editor.mjs')).ensureEditorBuilt({ quiet: true });

const args = process.argv.slice(2);
const isDir = (a) => fs.existsSync(a) && fs.statSync(a).isDirectory();
const files = args.filter((a) => a.endsWith('.ts') || isDir(a)).flatMap((a) => (isDir(a) ? listTests(a) : [a]));
const patterns = args.filter((a) => !a.endsWith('.ts') && !isDir(a));
const testFiles = files.length ? files : listTests('test');

const under = (file, ...dirs) => dirs.some((d) => path.relative(process.cwd(), path.resolve(file)).startsWith(path.join('test', d) + path.sep));
const apiConcurrency = Number(process.env.ATELIER_TEST_CONCURRENCY ?? 3);
// Measures of the machine: another file beside them would change what they measure.
const ALONE = ['uploadMemory', 'engineResources', 'runFairness', 'webhookFairness', 'slowloris', 'container', 'inflightRemote', 'budgets', 'rateLeases', 'modelCheckAtStart']
  .map((name) => path.join('test', 'system', `${name}.test.ts`));
const alone = (file) => ALONE.includes(path.relative(process.cwd(), path.resolve(file)));
const phases = [
  { name: 'unit', concurrency: os.availableParallelism(), files: testFiles.filter((f) => under(f, 'unit')) },
  { name: 'shared', concurrency: apiConcurrency, files: testFiles.filter((f) => !under(f, 'unit') && !alone(f)) },
  { name: 'alone', concurrency: 1, files: testFiles.filter((f) => alone(f)) },
].filter((p) => p.files.length > 0);

// `ATELIER_BLOB_STORE=s3 npm test`: every test server keeps its artifacts in a bucket of an s3rver the helpers
// start (test/helpers/s3.ts); passed on as ATELIER_TEST_BLOB_STORE so spawned children never see a half setting.
const testEnv = { ...process.env, ATELIER_TEST_ADMIN_URL: adminUrl };
if (testEnv.ATELIER_BLOB_STORE === 's3') {
  testEnv.ATELIER_TEST_BLOB_STORE = 's3';
  delete testEnv.ATELIER_BLOB_STORE;
  console.log('artifacts go to s3rver buckets (ATELIER_BLOB_STORE=s3)');
}

function runPhase(phase) {
  const nodeArgs = ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${phase.concurrency}`, ...patterns.flatMap((p) => ['--test-name-pattern', p]), ...phase.files];
  const child = spawn(process.execPath, nodeArgs, {
    stdio: 'inherit',
    // Atelier processes the tests start skip the start-up model check (its own test turns it on).
    // They run the sources through tsx (ATELIER_DEV=1), whatever state build/ is in: the test engines are
    // TypeScript modules; test/system/deployStops.test.ts runs the compiled tree itself.
    env: { ...testEnv, ATELIER_MODEL_SMOKE_AT_START: process.env.ATELIER_MODEL_SMOKE_AT_START ?? '0', ATELIER_DEV: process.env.ATELIER_DEV ?? '1' },
  });
  return new Promise((resolve) => child.on('close', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
}

let code = 0;
const summary = [];
for (const phase of phases) {
  if (phases.length > 1) console.log(`\n== ${phase.name}: ${phase.files.length} file(s), ${phase.concurrency} at a time`);
  const started = Date.now();
  const c = await runPhase(phase);
  summary.push(`${phase.name}: ${c === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (c !== 0) code = 1;
}
if (phases.length > 1) console.log(`\n${summary.join('\n')}`);
if (embedded) {
  await embedded.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
