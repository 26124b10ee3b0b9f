import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe as describeFinding, formatReport, type DoctorReport } from '../../../src/ops/doctor.js';

const checks = (counts: Record<string, number>): DoctorReport['checks'] => [
  { id: 'ledger_sums', title: 'ledger sums', passes: 'every balance equals the sum of its ledger rows', findings: counts.ledger_sums ?? 0 },
  { id: 'stuck_runs', title: 'stuck runs', passes: 'every queued or running run is held by a live worker', findings: counts.stuck_runs ?? 0 },
];

test('a clean report lists every check as ok and says so', () => {
  const text = formatReport({ ok: true, checkedAt: '', stuckAfterSeconds: 300, totals: { accounts: 2, runs: 5, ledgerEntries: 9 }, checks: checks({}), findings: [] });
  assert.equal(text, [
    'atelier doctor: 2 accounts, 5 runs, 9 ledger rows (stuck means over 300 s)',
    '  ok    ledger sums  every balance equals the sum of its ledger rows',
    '  ok    stuck runs   every queued or running run is held by a live worker',
    'No problems found.',
  ].join('\n'));
});

test('findings are listed under their check, capped per check', () => {
  const findings = Array.from({ length: 3 }, (_, i) => describeFinding('stuck_runs', { run_id: `run_${i}`, kind: 'node', status: 'QUEUED', reason: 'queued 400 s ago and no job on the queue can pick it up' }));
  const text = formatReport({ ok: false, checkedAt: '', stuckAfterSeconds: 300, totals: { accounts: 1, runs: 3, ledgerEntries: 0 }, checks: checks({ stuck_runs: 3 }), findings }, 2);
  assert.equal(text.split('\n').slice(2).join('\n'), [
    '  FAIL  stuck runs   3 findings',
    '          run_0: QUEUED node run: queued 400 s ago and no job on the queue can pick it up',
    '          run_1: QUEUED node run: queued 400 s ago and no job on the queue can pick it up',
    '          … and 1 more (--json lists them all)',
    '3 problems found.',
  ].join('\n'));
});

test('findings describe what is wrong in microcredits', () => {
  assert.equal(describeFinding('ledger_sums', { account_id: 'acc_1', no_balance_row: false, balance_posted: 107, ledger_posted: 100, balance_reserved: 0, ledger_reserved: 0 }).message,
    'balance 107 µc but its ledger rows sum to 100');
  assert.equal(describeFinding('ledger_sums', { account_id: 'acc_1', no_balance_row: true, balance_posted: 0, ledger_posted: 0, balance_reserved: 0, ledger_reserved: 5 }).message,
    'no balance row; reserved 0 µc but its ledger rows hold 5');
  assert.equal(describeFinding('open_reservations', { run_id: 'run_1', held: -20, status: 'COMPLETED', kind: 'node', recorded: 0 }).message,
    'the ledger released or captured 20 µc more than it reserved');
  assert.equal(describeFinding('open_reservations', { run_id: 'run_1', held: 300, status: 'RUNNING', kind: 'workflow', recorded: 200 }).message,
    'RUNNING workflow run holds 300 µc on the ledger but records 200');
  assert.equal(describeFinding('double_charges', { run_id: 'run_2', kind: 'workflow', status: 'COMPLETED', reserves: 1, captures: 3, captured: 1500, charged: 1000, units: 2, estimated: 1000 }).message,
    'COMPLETED workflow run: charged 3 times for 2 completed node(s); the ledger charged 1500 µc but the run records 1000');
  assert.equal(describeFinding('double_charges', { run_id: 'run_3', kind: 'node', status: 'COMPLETED', reserves: 1, captures: 1, captured: 900, charged: 900, units: 1, estimated: 500 }).message,
    'COMPLETED node run: charged 900 µc, more than its estimate of 500');
});
