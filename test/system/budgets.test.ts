import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from '../helpers/server.js';
import { twoApis, type RoleProcess } from '../helpers/processes.js';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';
import { runCli } from '../helpers/cli.js';

// Issue 29 item 1, must-show: 1,000 concurrent creates from two API processes against a key whose daily
// budget admits exactly 137 of them: exactly 137 are admitted, the ledger and `atelier doctor` agree, and
// the refusals name the limit. The runs are test_sleep runs (1000 microcredits each, test/helpers/testEngines.ts)
// that wait for a file never written while the creates go on, so no run ends and gives its hold back meanwhile.
let a: TestServer;
let b: RoleProcess;
let apis: Awaited<ReturnType<typeof twoApis>> | undefined;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-budgets-'));
const PRICE = 1000;

before(async () => {
  // The second process loads the test engines too (it inherits this environment).
  process.env.ATELIER_TEST_ENGINES_MODULE = TEST_ENGINES_MODULE;
  apis = await twoApis({ ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE });
  ({ a, b } = apis);
});

after(async () => {
  fs.writeFileSync(path.join(tmp, 'release'), 'go');
  await apis?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const create = (base: string, key: string, i: number) =>
  fetch(`${base}/v1/nodes/test_sleep/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: { started_file: path.join(tmp, `started-${i}`), release_file: path.join(tmp, 'release') } }),
  }).then(async (r) => {
    const text = await r.text();
    try {
      return { status: r.status, body: JSON.parse(text) as any };
    } catch {
      throw new Error(`create ${i} answered ${r.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
  });

/** `atelier doctor --json`'s report (it exits 1 when it finds anything; the report is on stdout either way). */
async function doctorReport(): Promise<any> {
  const cli = await runCli(['doctor', '--json'], { DATABASE_URL: a.databaseUrl, DATA_DIR: a.dataDir });
  try {
    return JSON.parse(cli.stdout);
  } catch {
    throw new Error(`atelier doctor exited ${cli.code} without a JSON report: ${cli.stdout.slice(0, 300)} ${cli.stderr.slice(0, 500)}`);
  }
}

test('1,000 concurrent creates from two API processes: a daily key budget admitting 137 admits exactly 137', async () => {
  const u = await a.user({ microcredits: 10_000_000n });
  const keys = await a.request('GET', '/v1/keys', { key: u.key });
  assert.equal(keys.status, 200, keys.text);
  const keyId = keys.body.keys[0].id as string;
  const set = await a.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { budgets: { day: 137 * PRICE } } });
  assert.equal(set.status, 200, set.text);

  const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => create(i % 2 === 0 ? a.url : b.url!, u.key, i)));
  const admitted = answers.filter((x) => x.status === 202 || x.status === 200);
  const refused = answers.filter((x) => x.status === 403);
  const other = answers.filter((x) => ![200, 202, 403].includes(x.status));
  assert.deepEqual(other.map((x) => [x.status, x.body]).slice(0, 3), [], 'every answer is an admission or a refusal');
  assert.equal(admitted.length, 137);
  assert.equal(refused.length, 863);

  // Every refusal names the limit: the key's, daily, its figure, and when it resets (the next UTC midnight).
  const tomorrow = new Date();
  tomorrow.setUTCHours(24, 0, 0, 0);
  for (const r of refused) {
    assert.equal(r.body.code, 'BUDGET_EXCEEDED');
    assert.deepEqual({ scope: r.body.limit.scope, keyId: r.body.limit.keyId, period: r.body.limit.period, limit: r.body.limit.limitMicrocredits, spent: r.body.limit.spentMicrocredits, resetsAt: r.body.limit.resetsAt },
      { scope: 'key', keyId, period: 'day', limit: 137 * PRICE, spent: 137 * PRICE, resetsAt: tomorrow.toISOString() });
  }
  assert.match(refused[0]!.body.message, /daily spend limit of 137000 has 0 left; it resets at/);

  // The ledger agrees: 137 holds of the price, no more, and the key's spend is exactly its limit.
  const db = a.services.db;
  const ledger = (await db.query(`SELECT count(*)::int AS n, COALESCE(sum(reserved_delta), 0)::bigint AS held FROM ledger_entries WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId])).rows[0];
  assert.deepEqual({ n: ledger.n, held: Number(ledger.held) }, { n: 137, held: 137 * PRICE });
  const bal = await a.request('GET', '/v1/credits/balance', { key: u.key });
  assert.equal(bal.body.availableBalance + bal.body.reservedMicrocredits, 10_000_000 - (await capturedOf(u.accountId)));
  const shown = await a.request('GET', `/v1/keys/${keyId}`, { key: u.key });
  assert.equal(shown.body.budgets[0].spentMicrocredits, 137 * PRICE);

  // Thresholds: 50 %, 80 % and 100 % each announced once, on the runs that crossed them.
  const events = (await db.query(`SELECT payload FROM events WHERE account_id = $1 AND type = 'budget.threshold' ORDER BY id`, [u.accountId])).rows;
  assert.deepEqual(events.map((e: any) => [e.payload.type, e.payload.data.percent, e.payload.data.scope, e.payload.data.limitMicrocredits]), [['budget.threshold', 50, 'key', 137000], ['budget.threshold', 80, 'key', 137000], ['budget.threshold', 100, 'key', 137000]]);

  // atelier doctor agrees: no period's spend passed its limit, and the ledger sums hold.
  const report = await doctorReport();
  const findings = (id: string) => report.checks.find((c: any) => c.id === id)?.findings;
  assert.equal(findings('budget_spend'), 0, JSON.stringify(report.findings));
  assert.equal(findings('ledger_sums'), 0, JSON.stringify(report.findings));

  // A release gives back: cancel one queued run, and exactly one more create is admitted.
  const queued = admitted.map((x) => x.body.id ?? x.body.runId).filter(Boolean);
  let canceled = false;
  for (const id of queued.reverse()) {
    const c = await a.request('POST', `/v1/nodes/runs/${id}/cancel`, { key: u.key });
    if (c.status === 200 && c.body.status === 'CANCELED') {
      canceled = true;
      break;
    }
  }
  assert.ok(canceled, 'one admitted run could be canceled');
  const again = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 === 0 ? a.url : b.url!, u.key, 2000 + i)));
  assert.equal(again.filter((x) => x.status === 202 || x.status === 200).length, 1);
  assert.equal(again.filter((x) => x.status === 403 && x.body.code === 'BUDGET_EXCEEDED').length, 19);
});

test("the account's own monthly limit applies to every key, and lowering it below the spend refuses further runs", async () => {
  const u = await a.user({ microcredits: 10_000_000n });
  const set = await a.request('PATCH', '/v1/credits/budgets', { key: u.key, body: { month: 3 * PRICE } });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.budgets.map((x: any) => [x.scope, x.period, x.limitMicrocredits, x.spentMicrocredits]), [['account', 'month', 3000, 0]]);
  const user = await a.services.accounts.requireByEmail(u.email);
  const second = await a.services.keys.create(user, { label: 'second', perMinute: 1000, perDay: 10_000 });
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await create(a.url, i === 1 ? second.key : u.key, 3000 + i));
  assert.deepEqual(answers.map((x) => x.status), [202, 202, 202]);
  const refused = await create(b.url!, second.key, 3010);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'BUDGET_EXCEEDED');
  assert.equal(refused.body.limit.scope, 'account');
  assert.equal(refused.body.limit.period, 'month');
  const nextMonth = new Date();
  nextMonth.setUTCDate(1);
  nextMonth.setUTCHours(0, 0, 0, 0);
  nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
  assert.equal(refused.body.limit.resetsAt, nextMonth.toISOString());
  const lowered = await a.request('PATCH', '/v1/credits/budgets', { key: u.key, body: { month: PRICE } });
  assert.equal(lowered.status, 200);
  expectBudgetRefusal(await create(a.url, u.key, 3020));
  // A lowered limit is no overspend: doctor stays quiet.
  const doctor = await doctorReport();
  assert.equal(doctor.checks.find((c: any) => c.id === 'budget_spend').findings, 0);
  const removed = await a.request('PATCH', '/v1/credits/budgets', { key: u.key, body: { month: null } });
  assert.deepEqual(removed.body.budgets, []);
  assert.equal((await create(a.url, u.key, 3030)).status, 202);
});

function expectBudgetRefusal(r: { status: number; body: any }): void {
  assert.equal(r.status, 403, JSON.stringify(r.body));
  assert.equal(r.body.code, 'BUDGET_EXCEEDED');
}

async function capturedOf(accountId: string): Promise<number> {
  const r = (await a.services.db.query(`SELECT COALESCE(-sum(posted_delta), 0)::bigint AS c FROM ledger_entries WHERE account_id = $1 AND kind = 'capture'`, [accountId])).rows[0];
  return Number(r.c);
}
