import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

async function grants(accountId: string): Promise<bigint[]> {
  return (await srv.services.db.query(`SELECT posted_delta FROM ledger_entries WHERE account_id = $1 AND kind = 'subscription_grant' ORDER BY id`, [accountId])).rows.map((r) => r.posted_delta);
}

test('a subscription grants its first period at once and shows as active', async () => {
  const u = await srv.user({ microcredits: 0n });
  const r = await runCli(['subscriptions', 'set', '--email', u.email, '--plan', 'pro', '--monthly-microcredits', '25000000', '--json'],
    { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).status, 'active');
  const b = await srv.request('GET', '/v1/credits/balance', { key: u.key });
  assert.equal(b.body.hasActiveSubscription, true);
  assert.equal(b.body.availableBalance, 25_000_000);
  assert.deepEqual(await grants(u.accountId), [25_000_000n]);
});

test('each period is granted exactly once, however many schedulers run at once', async () => {
  const u = await srv.user({ microcredits: 0n });
  await srv.services.subscriptions.set(u.accountId, 'team', 1_000_000n);
  // Move the subscription's start back 2 months and 3 days: the current period is the third one.
  await srv.services.db.query(`UPDATE subscriptions SET anchor = anchor - interval '2 months 3 days' WHERE account_id = $1`, [u.accountId]);
  const results = await Promise.all(Array.from({ length: 8 }, () => srv.services.subscriptions.grantDue()));
  assert.equal(results.reduce((a, b) => a + b, 0), 1, 'one grant for the newly started period');
  assert.deepEqual(await grants(u.accountId), [1_000_000n, 1_000_000n]);
  assert.equal(await srv.services.subscriptions.grantDue(), 0);
  const s = (await srv.services.subscriptions.get(u.accountId))!;
  assert.ok(new Date(s.currentPeriodStart) <= new Date() && new Date() < new Date(s.currentPeriodEnd));
});

test('changing the plan keeps the period; canceling stops grants and the flag', async () => {
  const u = await srv.user({ microcredits: 0n });
  await srv.services.subscriptions.set(u.accountId, 'basic', 2_000_000n);
  await srv.services.subscriptions.set(u.accountId, 'bigger', 5_000_000n);
  assert.deepEqual(await grants(u.accountId), [2_000_000n], 'no second grant within the same period');
  const r = await runCli(['subscriptions', 'cancel', '--email', u.email], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).body.hasActiveSubscription, false);
  await srv.services.db.query(`UPDATE subscriptions SET anchor = anchor - interval '1 month' WHERE account_id = $1`, [u.accountId]);
  assert.equal(await srv.services.subscriptions.grantDue(u.accountId), 0);
  const again = await runCli(['subscriptions', 'cancel', '--email', u.email], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /no active subscription/);
});

test('an organization subscription belongs to the organization balance', async () => {
  const u = await srv.user({ microcredits: 0n, org: `Org ${Date.now()}` });
  await srv.services.subscriptions.set(u.accountId, 'org-plan', 3_000_000n);
  const b = await srv.request('GET', '/v1/credits/balance', { key: u.key });
  assert.equal(b.body.isOrganization, true);
  assert.equal(b.body.hasActiveSubscription, true);
  assert.equal(b.body.availableBalance, 3_000_000);
});
