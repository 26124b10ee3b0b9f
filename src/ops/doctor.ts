import type { Db } from '../db/pool.js';
import type { FileService } from '../files/service.js';
import { CHECKS, LIVE_JOBS, NO_JOBS, QUEUE_PRESENT, TOTALS, type CheckId, type TotalsRow } from './queries.js';
import type { Catalog } from '../catalog/catalog.js';
import { checkNodeCharges } from './nodeChargeCheck.js';
import { rowOf, rowsOf } from '../db/typed.js';

export interface Finding {
  check: CheckId;
  /** The account, run or delivery the finding is about. */
  subject: string;
  message: string;
  details: Record<string, unknown>;
}

export interface DoctorReport {
  ok: boolean;
  checkedAt: string;
  stuckAfterSeconds: number;
  totals: { accounts: number; runs: number; ledgerEntries: number };
  checks: Array<{ id: CheckId; title: string; passes: string; findings: number }>;
  findings: Finding[];
}

/** Runs every check over one consistent snapshot of the database; reads only. */
export async function runDoctor(db: Db, opts: { stuckAfterSeconds: number; files?: FileService; catalog?: Catalog }): Promise<DoctorReport> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const hasQueue = (await rowOf<{ present: boolean }>(client, QUEUE_PRESENT))!.present;
    const jobs = hasQueue ? LIVE_JOBS : NO_JOBS;
    const totals = (await rowOf<TotalsRow>(client, TOTALS))!;
    const findings: Finding[] = [];
    const checks: DoctorReport['checks'] = [];
    for (const check of CHECKS) {
      // Each check answers columns of its own: the finding shows them as they are.
      const rows = await rowsOf<Record<string, unknown>>(client, check.sql.replace('LIVE_JOBS', jobs), check.timed ? [opts.stuckAfterSeconds] : []);
      const found = rows.map((row) => describe(check.id, plain(row)));
      findings.push(...found);
      checks.push({ id: check.id, title: check.title, passes: check.passes, findings: found.length });
    }
    if (opts.catalog) {
      // Workflow nodes re-priced from their stored input with the one pricing function (in JS, not SQL).
      const found = (await checkNodeCharges(client, opts.catalog)).map((row) => describe('node_charges', row as unknown as Record<string, unknown>));
      findings.push(...found);
      checks.push({ id: 'node_charges', title: 'node charges', passes: 'every charged workflow node was charged the price of the input it ran with', findings: found.length });
    }
    await client.query('COMMIT');
    if (opts.files) {
      // Outside the snapshot: it asks the artifact store (a folder or a bucket) about every live file's blob.
      const found = (await opts.files.missingBlobs()).map((m) => describe('missing_blobs', { sha256: m.sha256, file_ids: m.files, account_id: m.accountId, store: opts.files!.blobs.where }));
      findings.push(...found);
      checks.push({ id: 'missing_blobs', title: 'artifact blobs', passes: 'every live file row has its bytes in the artifact store', findings: found.length });
    }
    return {
      ok: findings.length === 0,
      checkedAt: new Date().toISOString(),
      stuckAfterSeconds: opts.stuckAfterSeconds,
      totals: { accounts: totals.accounts, runs: totals.runs, ledgerEntries: totals.ledger_entries },
      checks,
      findings,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** bigint columns as numbers (microcredit amounts stay far below 2^53), so the report is plain JSON. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
}

/** One finding in words an operator can act on. Pure. */
export function describe(check: CheckId, d: Record<string, any>): Finding {
  switch (check) {
    case 'ledger_sums': {
      const parts: string[] = [];
      if (d.balance_posted !== d.ledger_posted) parts.push(`balance ${d.balance_posted} µc but its ledger rows sum to ${d.ledger_posted}`);
      if (d.balance_reserved !== d.ledger_reserved) parts.push(`reserved ${d.balance_reserved} µc but its ledger rows hold ${d.ledger_reserved}`);
      const prefix = d.no_balance_row ? 'no balance row; ' : '';
      return { check, subject: d.account_id, message: prefix + parts.join('; '), details: d };
    }
    case 'open_reservations': {
      let message: string;
      if (d.held < 0) message = `the ledger released or captured ${-d.held} µc more than it reserved`;
      else if (d.status === null || d.status === undefined) message = `${d.held} µc reserved for a run that does not exist`;
      else if (['COMPLETED', 'FAILED', 'CANCELED'].includes(d.status)) message = `${d.held} µc still reserved on the ledger though the run is ${d.status}`;
      else message = `${d.status} ${d.kind} run holds ${d.held} µc on the ledger but records ${d.recorded}`;
      return { check, subject: d.run_id, message, details: d };
    }
    case 'double_charges': {
      const parts: string[] = [];
      if (d.reserves > (d.max_reserves ?? 1)) parts.push(`reserved ${d.reserves} times`);
      if (d.captures > (d.units ?? 0)) parts.push(`charged ${d.captures} times for ${d.units ?? 0} completed ${d.kind === 'workflow' ? 'node(s)' : 'run'}`);
      if (d.captured !== (d.charged ?? 0)) parts.push(`the ledger charged ${d.captured} µc but the run records ${d.charged ?? 'no run'}`);
      if (d.kind === 'node' && d.charged !== null && d.estimated !== null && d.charged > d.estimated) parts.push(`charged ${d.charged} µc, more than its estimate of ${d.estimated}`);
      const what = d.kind ? `${d.status} ${d.kind} run` : 'missing run';
      return { check, subject: d.run_id, message: `${what}: ${parts.join('; ')}`, details: d };
    }
    case 'stuck_runs':
      return { check, subject: d.run_id, message: `${d.status} ${d.kind} run: ${d.reason}`, details: d };
    case 'unfinished_workflows':
      return { check, subject: d.run_id, message: `still ${d.status} though all ${d.nodes} node(s) ended ${d.ended_seconds_ago} s ago`, details: d };
    case 'missing_blobs':
      return { check, subject: d.file_ids.join(', '), message: `the artifact store (${d.store}) has no blob ${d.sha256} for ${d.file_ids.length} file row(s) of account ${d.account_id}`, details: d };
    case 'node_charges':
      return { check, subject: `${d.run_id}/${d.node_id}`, message: `${d.node_type} node: ${d.reason}`, details: d };
    case 'circuit_held_deliveries':
      return {
        check, subject: d.destination,
        message: `${d.deliveries} delivery(ies) of account ${d.account_id} to ${d.origin} wait behind its open circuit (${d.failures} failures in a row${d.open_for_seconds > 0 ? `, next probe in ${d.open_for_seconds} s` : ', probing'}); the oldest has been due ${d.oldest_due_seconds_ago} s`,
        details: d,
      };
    case 'budget_spend': {
      const whose = d.key_id ? `key ${d.key_id}` : `account ${d.account_id}`;
      const message = d.kind === 'over'
        ? `${whose}'s ${d.period} spend ${d.spent_microcredits} µc passed its limit of ${d.limit_microcredits}`
        : `${whose}'s ${d.period} spend ${d.spent_microcredits} µc is less than the ${d.held} µc its live holds count in it`;
      return { check, subject: whose, message, details: d };
    }
    case 'stalled_deliveries':
      return { check, subject: d.delivery_id, message: `event ${d.event_id} of run ${d.run_id} has been due for ${d.due_seconds_ago} s with no deliverer sending it (${d.attempts} attempt(s) so far)`, details: d };
  }
}

/** The human report: one line per check, its findings under it (at most `perCheck` each). Pure. */
export function formatReport(r: DoctorReport, perCheck = 20): string {
  const lines = [`atelier doctor: ${r.totals.accounts} accounts, ${r.totals.runs} runs, ${r.totals.ledgerEntries} ledger rows (stuck means over ${r.stuckAfterSeconds} s)`];
  const width = Math.max(...r.checks.map((c) => c.title.length));
  for (const c of r.checks) {
    if (c.findings === 0) {
      lines.push(`  ok    ${c.title.padEnd(width)}  ${c.passes}`);
      continue;
    }
    lines.push(`  FAIL  ${c.title.padEnd(width)}  ${c.findings} finding${c.findings === 1 ? '' : 's'}`);
    const mine = r.findings.filter((f) => f.check === c.id);
    for (const f of mine.slice(0, perCheck)) lines.push(`          ${f.subject}: ${f.message}`);
    if (mine.length > perCheck) lines.push(`          … and ${mine.length - perCheck} more (--json lists them all)`);
  }
  const n = r.findings.length;
  lines.push(n === 0 ? 'No problems found.' : `${n} problem${n === 1 ? '' : 's'} found.`);
  return lines.join('\n');
}
