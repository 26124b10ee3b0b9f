#!/usr/bin/env node
// The test command (`npm test`): finds a PostgreSQL for the tests, then runs test/**/*.test.ts with node's
// test runner, each file in a process of its own. Each test file creates and drops its own database on that server.
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
// A failing phase does not stop the next; the exit code is 1 if any failed. The summary at the end names the
// failed files and each phase's slowest; ATELIER_TEST_TIMES=FILE writes every file's time to FILE.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { compiledState } from './build.mjs';

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
// The folders whose files run longest start first (they spawn whole services, browsers or CLI processes), so
// the phase does not end with one long file running while the other slots sit idle.
const LONG_FOLDERS = ['system', 'cli', 'web', 'compat'];
const folderRank = (file) => {
  const i = LONG_FOLDERS.findIndex((d) => under(file, d));
  return i === -1 ? LONG_FOLDERS.length : i;
};
const longestFirst = (list) => [...list].sort((a, b) => folderRank(a) - folderRank(b) || a.localeCompare(b));
const phases = [
  { name: 'unit', concurrency: os.availableParallelism(), files: testFiles.filter((f) => under(f, 'unit')) },
  { name: 'shared', concurrency: apiConcurrency, files: longestFirst(testFiles.filter((f) => !under(f, 'unit') && !alone(f))) },
  { name: 'alone', concurrency: 1, files: testFiles.filter((f) => alone(f)) },
].filter((p) => p.files.length > 0);

// `ATELIER_BLOB_STORE=s3 npm test`: every test server keeps its artifacts in a bucket of an s3rver the helpers
// start (test/helpers/s3.ts); passed on as ATELIER_TEST_BLOB_STORE so spawned children never see a half setting.
const testEnv = { ...process.env, ATELIER_TEST_ADMIN_URL: adminUrl };
// The processes the tests spawn (CLI commands, `serve`, engine children) run the compiled build when it is
// current, as after `npm ci`: through tsx each costs about twice the CPU, which made up much of a CI run.
// With sources newer than build/ they run the sources through tsx (ATELIER_DEV=1), so an edit is never
// tested against stale JavaScript; `npm run build` makes such a run faster.
if (testEnv.ATELIER_DEV === undefined && compiledState() !== 'current') {
  testEnv.ATELIER_DEV = '1';
  console.log('build/ is not current: spawned processes run the sources through tsx (`npm run build` makes the tests faster)');
}
if (testEnv.ATELIER_BLOB_STORE === 's3') {
  testEnv.ATELIER_TEST_BLOB_STORE = 's3';
  delete testEnv.ATELIER_BLOB_STORE;
  console.log('artifacts go to s3rver buckets (ATELIER_BLOB_STORE=s3)');
}

/**
 * Runs one test file in a process of its own (as node's --test does), with the spec reporter; answers its
 * exit code, its output and how long it took. Node's own runner sorts the files it is given by path, so the
 * phases schedule the files themselves: the longest first (longestFirst), each file's output printed whole
 * when it ends, never interleaved.
 */
function runFile(file) {
  const started = Date.now();
  const nodeArgs = ['--import', 'tsx', '--test-reporter=spec', ...patterns.flatMap((p) => ['--test-name-pattern', p]), file];
  const child = spawn(process.execPath, nodeArgs, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Atelier processes the tests start skip the start-up model check (its own test turns it on).
    env: { ...testEnv, ATELIER_MODEL_SMOKE_AT_START: process.env.ATELIER_MODEL_SMOKE_AT_START ?? '0' },
  });
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => out.push(d));
  return new Promise((resolve) => child.on('close', (c, sig) => resolve({ file, code: c ?? (sig ? 1 : 0), output: Buffer.concat(out).toString(), seconds: (Date.now() - started) / 1000 })));
}

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/** Runs a phase's files, `concurrency` at a time in the phase's order; prints each file's report as it ends. */
async function runPhase(phase) {
  const queue = [...phase.files];
  const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
  const results = [];
  const slot = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const r = await runFile(file);
      results.push(r);
      // The per-file totals of the spec reporter ("ℹ pass 3") are summed into the phase's instead.
      const kept = [];
      for (const line of r.output.split('\n')) {
        const m = /^ℹ (\w+) (\d+)/.exec(line);
        if (m && COUNTS.includes(m[1])) totals[m[1]] += Number(m[2]);
        else if (!/^ℹ duration_ms /.test(line)) kept.push(line);
      }
      const rel = path.relative(process.cwd(), r.file);
      process.stdout.write(`\n── ${rel}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s\n${kept.join('\n').trimEnd()}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, phase.concurrency) }, slot));
  return { results, totals };
}

let code = 0;
const summary = [];
const allTimes = [];
for (const phase of phases) {
  if (phases.length > 1) console.log(`\n== ${phase.name}: ${phase.files.length} file(s), ${phase.concurrency} at a time`);
  const started = Date.now();
  const { results, totals } = await runPhase(phase);
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length) code = 1;
  summary.push(`${phase.name}: ${failed.length ? 'FAILED' : 'passed'} in ${Math.round((Date.now() - started) / 1000)} s (${COUNTS.map((k) => `${k} ${totals[k]}`).join(', ')})`);
  for (const r of failed) summary.push(`  FAILED ${path.relative(process.cwd(), r.file)}`);
  // The slowest files: what to look at when a run grows long.
  for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5)) summary.push(`  ${r.seconds.toFixed(0).padStart(5)} s  ${path.relative(process.cwd(), r.file)}`);
  allTimes.push(...results.map((r) => `${phase.name}\t${r.seconds.toFixed(1)}\t${r.code === 0 ? 'ok' : 'FAILED'}\t${path.relative(process.cwd(), r.file)}`));
}
console.log(`\n${summary.join('\n')}`);
// ATELIER_TEST_TIMES=FILE keeps every file's time (phase, seconds, outcome, file) for a closer look.
if (process.env.ATELIER_TEST_TIMES) fs.writeFileSync(process.env.ATELIER_TEST_TIMES, `${allTimes.join('\n')}\n`);
if (embedded) {
  await embedded.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
