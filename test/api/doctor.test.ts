import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase } from '../helpers/db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { runCli } from '../helpers/cli.js';
import { Db } from '../../src/db/pool.js';
import { runDoctor } from '../../src/ops/doctor.js';

// A database that has seen real work (standalone runs, workflow runs, a cache hit, webhooks), checked
// clean; then the same database corrupted on purpose, one distinct subject per check.
let database: Awaited<ReturnType<typeof freshDatabase>>;
let srv: TestServer | undefined;
let db: Db;
let env: Record<string, string>;
const ids: { accounts: string[]; nodeRuns: string[]; workflowRuns: string[] } = { accounts: [], nodeRuns: [], workflowRuns: [] };

before(async () => {
  database = await freshDatabase();
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { databaseUrl: database.url });
  db = new Db(database.url, { max: 2, applicationName: 'doctor-test' });
  env = { DATABASE_URL: database.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-doctor-')) };
});
after(async () => {
  await srv?.close();
  await db.close();
  await database.drop();
  fs.rmSync(env.DATA_DIR!, { recursive: true, force: true });
});

test('a database after real work is clean: no findings, exit 0', async () => {
  const s = srv!;
  for (let i = 0; i < 3; i++) {
    const u = await s.user();
    ids.accounts.push(u.accountId);
    for (const text of ['one two three', 'four five']) {
      const r = await s.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: `${text} ${i}` }, webhook: { url: 'http://127.0.0.1:9/unreachable' } } });
      assert.equal(r.status, 202, r.text);
      ids.nodeRuns.push(r.body.runId);
      assert.equal((await waitForStatus(s, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    }
  }
  const u = await s.user();
  const wf = await s.request('POST', '/v1/workflows', {
    key: u.key,
    body: {
      name: 'Counter', nodes: [{ id: 'req', type: 'request', data: { fields: [{ id: 't', name: 't', type: 'text' }] } }, { id: 'wc', type: 'word_count' }, { id: 'res', type: 'response' }],
      edges: [{ source: 'req', sourceHandle: 't', target: 'wc', targetHandle: 'in:text' }, { source: 'wc', sourceHandle: 'out:words', target: 'res', targetHandle: 'result' }],
    },
  });
  assert.equal(wf.status, 201, wf.text);
  // The second run is served from the node cache: its hold is released, nothing captured.
  for (let i = 0; i < 2; i++) {
    const r = await s.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.body.id, values: { req: { t: 'same words' } } } });
    assert.equal(r.status, 202, r.text);
    ids.workflowRuns.push(r.body.runId);
    assert.equal((await waitForStatus(s, u.key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
  }

  const json = await runCli(['doctor', '--json', '--stuck-after', '60'], env);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(report.findings, []);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(report.ok, true);
  assert.deepEqual(report.checks.map((c: { id: string }) => c.id), ['ledger_sums', 'open_reservations', 'double_charges', 'stuck_runs', 'unfinished_workflows', 'stalled_deliveries', 'circuit_held_deliveries', 'budget_spend', 'node_charges', 'missing_blobs']);
  assert.ok(report.totals.runs >= 8 && report.totals.ledgerEntries > 0, JSON.stringify(report.totals));
  const human = await runCli(['doctor'], env);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /ok +ledger sums +every balance equals the sum of its ledger rows/);
  assert.match(human.stdout, /No problems found\.$/m);
});

test('each check fires on its own deliberate corruption, and exit code is 1', async () => {
  // Nothing may repair the damage while we look at it: stop the service (the database stays).
  await srv!.close();
  srv = undefined;
  const [a, b, c] = ids.accounts as [string, string, string];
  const [r1, r2, r3] = ids.nodeRuns as [string, string, string];
  const w = ids.workflowRuns[0]!;
  const q = (sql: string, values: unknown[] = []) => db.query(sql, values);

  // ledger_sums: a balance moved without a ledger row.
  await q(`UPDATE account_balances SET posted = posted + 7 WHERE account_id = $1`, [a]);
  // open_reservations: a hold left on a completed run, and one for a run that does not exist (balances kept in step).
  await q(`INSERT INTO ledger_entries (account_id, kind, reserved_delta, run_id) VALUES ($1, 'adjustment', 100, $2)`, [b, r1]);
  await q(`INSERT INTO ledger_entries (account_id, kind, reserved_delta, run_id) VALUES ($1, 'reserve', 50, 'run_ghost')`, [b]);
  await q(`UPDATE account_balances SET reserved = reserved + 150 WHERE account_id = $1`, [b]);
  // double_charges: a completed run captured a second time.
  await q(`INSERT INTO ledger_entries (account_id, kind, posted_delta, run_id) VALUES ($1, 'capture', -500, $2)`, [c, r2]);
  await q(`UPDATE account_balances SET posted = posted - 500 WHERE account_id = $1`, [c]);
  // stuck_runs: a running run whose worker vanished an hour ago, and a queued run with no job.
  await q(`INSERT INTO runs (id, account_id, kind, node_type, status, input, estimated_microcredits, lease_owner, lease_expires_at, started_at)
           VALUES ('run_stuck_lease', $1, 'node', 'word_count', 'RUNNING', '{}', 0, 'wrk_gone', now() - interval '1 hour', now() - interval '2 hours')`, [c]);
  await q(`INSERT INTO runs (id, account_id, kind, node_type, status, input, estimated_microcredits, enqueued_at)
           VALUES ('run_stuck_queued', $1, 'node', 'word_count', 'QUEUED', '{}', 0, now() - interval '1 hour')`, [c]);
  // unfinished_workflows: every node ended an hour ago, the run never closed.
  await q(`UPDATE runs SET status = 'RUNNING', finished_at = NULL WHERE id = $1`, [w]);
  await q(`UPDATE node_runs SET finished_at = now() - interval '1 hour' WHERE run_id = $1`, [w]);
  // stalled_deliveries: a delivery due an hour ago that no deliverer holds (to a destination whose circuit
  // is not open: the unreachable one above was being backed off, which is not a stall).
  await q(`INSERT INTO events (event_id, account_id, run_id, type, payload) VALUES ('evt_doctor', $1, $2, 'run.completed', '{}')`, [a, r3]);
  const dlv = (await q(`INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, status, next_attempt_at)
           VALUES ('evt_doctor', $1, 'run_other', 'http://127.0.0.1:10/', 'pending', now() - interval '1 hour') RETURNING id::text`, [a])).rows[0].id;
  // circuit_held_deliveries (issue 26, finding 2): an account's receiver kept failing, its circuit is open,
  // and its delivery has been due an hour: reported per destination (that account's origin).
  await q(`INSERT INTO webhook_deliveries (event_id, account_id, run_id, url, status, next_attempt_at)
           VALUES ('evt_doctor', $1, 'run_held', 'http://127.0.0.1:11/hook', 'pending', now() - interval '1 hour')`, [b]);
  await q(`INSERT INTO webhook_endpoints (destination, failures, open_until) VALUES ($1, 7, now() + interval '5 minutes')`, [`${b} http://127.0.0.1:11`]);

  const report = await runDoctor(db, { stuckAfterSeconds: 60 });
  const got = report.findings.map((f) => `${f.check} ${f.subject}`).sort();
  assert.deepEqual(got, [
    `double_charges ${r2}`,
    `ledger_sums ${a}`,
    `open_reservations ${r1}`,
    'open_reservations run_ghost',
    'stalled_deliveries ' + dlv,
    `circuit_held_deliveries ${b} http://127.0.0.1:11`,
    'stuck_runs run_stuck_lease',
    'stuck_runs run_stuck_queued',
    `unfinished_workflows ${w}`,
  ].sort());
  assert.equal(report.ok, false);
  const msg = (check: string, subject: string) => report.findings.find((f) => f.check === check && f.subject === subject)!.message;
  assert.match(msg('ledger_sums', a), /balance \d+ µc but its ledger rows sum to \d+/);
  assert.match(msg('circuit_held_deliveries', `${b} http://127.0.0.1:11`), new RegExp(`1 delivery\\(ies\\) of account ${b} to http://127.0.0.1:11 wait behind its open circuit \\(7 failures in a row, next probe in \\d+ s\\)`));
  assert.match(msg('open_reservations', r1), /100 µc still reserved on the ledger though the run is COMPLETED/);
  assert.match(msg('open_reservations', 'run_ghost'), /50 µc reserved for a run that does not exist/);
  assert.match(msg('double_charges', r2), /charged 2 times for 1 completed run/);
  assert.match(msg('stuck_runs', 'run_stuck_lease'), /lease lapsed \d+ s ago/);
  assert.match(msg('stuck_runs', 'run_stuck_queued'), /no job on the queue/);

  // A threshold longer than the damage is old hides the time-based findings, not the others.
  const patient = await runDoctor(db, { stuckAfterSeconds: 7200 });
  assert.deepEqual([...new Set(patient.findings.map((f) => f.check))].sort(), ['double_charges', 'ledger_sums', 'open_reservations']);

  const cli = await runCli(['doctor', '--stuck-after', '60'], env);
  assert.equal(cli.code, 1, cli.stderr);
  assert.match(cli.stdout, /FAIL +ledger sums +1 finding/);
  assert.match(cli.stdout, /FAIL +stuck runs +2 findings/);
  assert.match(cli.stdout, /FAIL +webhook circuits +1 finding/);
  assert.match(cli.stdout, /9 problems found\.$/m);
  const json = await runCli(['doctor', '--json', '--stuck-after', '60'], env);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).findings.length, 9);
  const bad = await runCli(['doctor', '--stuck-after', 'soon'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--stuck-after must be a whole number/);
});
