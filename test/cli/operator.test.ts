import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let env: Record<string, string>;
before(async () => {
  srv = await startTestServer();
  env = { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir };
});
after(async () => {
  await srv.close();
});

const ok = async (args: string[]) => {
  const r = await runCli(args, env);
  assert.equal(r.code, 0, `atelier ${args.join(' ')} failed: ${r.stderr}`);
  return r;
};
const fails = async (args: string[], reason: RegExp) => {
  const r = await runCli(args, env);
  assert.notEqual(r.code, 0, `atelier ${args.join(' ')} should fail`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one-line reason expected, got: ${r.stderr}`);
  assert.match(lines[0]!, reason);
  return r;
};

describe('atelier CLI', () => {
  test('users create, keys create --json, and the key works over HTTP', async () => {
    await ok(['users', 'create', '--email', 'Cli@Example.com', '--password', 'long enough pw']);
    const r = await ok(['keys', 'create', '--email', 'cli@example.com', '--label', 'ci', '--per-minute', '120', '--per-day', '5000', '--expires-at', '2099-01-01T00:00:00Z', '--json']);
    const k = JSON.parse(r.stdout.trim());
    assert.match(k.key, /^gx_[0-9A-Za-z]{40}$/);
    assert.ok(k.id);
    assert.equal(k.prefix, k.key.slice(0, 11));
    assert.equal(k.label, 'ci');
    assert.equal(k.expiresAt, '2099-01-01T00:00:00.000Z');
    assert.equal(k.rateLimitPerMinute, 120);
    assert.equal(k.rateLimitPerDay, 5000);
    const res = await srv.request('GET', '/v1/credits/balance', { key: k.key });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '120');

    const list = JSON.parse((await ok(['keys', 'list', '--email', 'cli@example.com', '--json'])).stdout);
    assert.equal(list.length, 1);
    assert.equal(list[0].state, 'active');
    assert.ok(!JSON.stringify(list).includes(k.key), 'listing never shows the full key');

    await ok(['keys', 'revoke', '--email', 'cli@example.com', '--label', 'ci']);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: k.key })).status, 401);
  });

  test('bad arguments exit non-zero with a one-line reason', async () => {
    await ok(['users', 'create', '--email', 'limits@example.com', '--password', 'long enough pw']);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--per-minute', '0'], /perMinute must be an integer from 1 to 10000/);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--per-minute', '10001'], /1 to 10000/);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--per-day', '100001'], /perDay must be an integer from 1 to 100000/);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--expires-at', 'tomorrow'], /--expires-at must be an ISO 8601/);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--expires-at', '2001-01-01'], /expiresAt must be in the future/);
    await fails(['keys', 'create', '--email', 'nobody@example.com', '--label', 'a'], /no user with email nobody@example.com/);
    await fails(['keys', 'create', '--email', 'limits@example.com'], /--label is required/);
    await fails(['keys', 'create', '--email', 'limits@example.com', '--label', 'a', '--bogus'], /Unknown option '--bogus'/);
    await fails(['users', 'create', '--email', 'limits@example.com', '--password', 'long enough pw'], /already exists/);
    await fails(['users', 'create', '--email', 'not-an-email', '--password', 'long enough pw'], /email must be an email address/);
    await fails(['users', 'create', '--email', 'short@example.com', '--password', 'short'], /at least 8 characters/);
    await fails(['credits', 'grant', '--email', 'limits@example.com', '--microcredits', '-5'], /--microcredits got a value starting with "-"/);
    await fails(['credits', 'grant', '--email', 'limits@example.com', '--microcredits=-5'], /positive whole number/);
    await fails(['credits', 'grant', '--email', 'limits@example.com', '--microcredits', '0'], /microcredits must be an integer from 1/);
    await fails(['frobnicate'], /unknown command/);
  });

  test('labels are unique per account and at most 10 live keys are allowed', async () => {
    await ok(['users', 'create', '--email', 'ten@example.com', '--password', 'long enough pw']);
    await ok(['keys', 'create', '--email', 'ten@example.com', '--label', 'k0']);
    await fails(['keys', 'create', '--email', 'ten@example.com', '--label', 'k0'], /a key labelled "k0" already exists/);
    const user = await srv.services.accounts.requireByEmail('ten@example.com');
    for (let i = 1; i < 10; i++) await srv.services.keys.create(user, { label: `k${i}` });
    await fails(['keys', 'create', '--email', 'ten@example.com', '--label', 'k10'], /at most 10 keys/);
    // Revoked keys do not count, and free their label.
    await ok(['keys', 'revoke', '--email', 'ten@example.com', '--label', 'k0']);
    await ok(['keys', 'create', '--email', 'ten@example.com', '--label', 'k0']);
  });

  test('ten concurrent creates on a nine-key account admit exactly one', async () => {
    const u = await srv.services.accounts.createUser({ email: 'race@example.com', password: 'long enough pw' });
    for (let i = 0; i < 9; i++) await srv.services.keys.create(u, { label: `r${i}` });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => srv.services.keys.create(u, { label: `x${i}` })));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  });

  test('credits grant writes a ledger row that the balance shows', async () => {
    await ok(['users', 'create', '--email', 'rich@example.com', '--password', 'long enough pw']);
    await ok(['credits', 'grant', '--email', 'rich@example.com', '--microcredits', '26170000']);
    const k = JSON.parse((await ok(['keys', 'create', '--email', 'rich@example.com', '--label', 'x', '--json'])).stdout);
    const res = await srv.request('GET', '/v1/credits/balance', { key: k.key });
    assert.equal(res.body.availableBalance, 26_170_000);
    assert.equal(res.body.formatted, '26.17M');
    assert.equal(res.body.isOrganization, false);
    const rows = (await srv.services.db.query(
      `SELECT l.kind, l.posted_delta FROM ledger_entries l JOIN users u ON u.account_id = l.account_id WHERE u.email = 'rich@example.com'`)).rows;
    assert.deepEqual(rows.map((r) => [r.kind, r.posted_delta]), [['grant', 26_170_000n]]);
  });

  test('quickstart creates the user, a starter balance and a working key', async () => {
    const r = await ok(['quickstart', '--email', 'new@example.com', '--json']);
    const q = JSON.parse(r.stdout);
    assert.match(q.key, /^gx_/);
    assert.equal(q.grantedMicrocredits, 10_000_000);
    const res = await srv.request('GET', '/v1/credits/balance', { key: q.key });
    assert.equal(res.body.availableBalance, 10_000_000);
    // A second quickstart for the same user makes another key but grants nothing again.
    const again = JSON.parse((await ok(['quickstart', '--email', 'new@example.com', '--json'])).stdout);
    assert.equal(again.grantedMicrocredits, 0);
    assert.notEqual(again.key, q.key);
  });

  test('organization members share the organization balance', async () => {
    await ok(['users', 'create', '--email', 'alice@acme.test', '--password', 'long enough pw', '--org', 'Acme']);
    await ok(['users', 'create', '--email', 'bob@acme.test', '--password', 'long enough pw']);
    const bobKey = JSON.parse((await ok(['keys', 'create', '--email', 'bob@acme.test', '--label', 'before', '--json'])).stdout);
    const joined = await ok(['users', 'join-org', '--email', 'bob@acme.test', '--org', 'Acme']);
    // Joining switches Bob's existing keys to the (still empty) organization balance: he is told so.
    assert.match(joined.stderr, /API keys \(1\) now act for organization Acme/);
    assert.match(joined.stderr, /0 microcredits available.*403/);
    assert.match(joined.stderr, /use-org --email bob@acme\.test --personal/);
    const listed = await ok(['keys', 'list', '--email', 'bob@acme.test']);
    assert.match(listed.stdout, /acting for organization Acme \(acco_/);
    assert.match(listed.stdout, /before/);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: bobKey.key })).body.isOrganization, true);
    await ok(['credits', 'grant', '--email', 'alice@acme.test', '--microcredits', '5000000']);
    const kb = JSON.parse((await ok(['keys', 'create', '--email', 'bob@acme.test', '--label', 'b', '--json'])).stdout);
    let res = await srv.request('GET', '/v1/credits/balance', { key: kb.key });
    assert.equal(res.body.isOrganization, true);
    assert.equal(res.body.availableBalance, 5_000_000);
    await ok(['users', 'use-org', '--email', 'bob@acme.test', '--personal']);
    res = await srv.request('GET', '/v1/credits/balance', { key: kb.key });
    assert.equal(res.body.isOrganization, false);
    assert.equal(res.body.availableBalance, 0);
    await fails(['users', 'use-org', '--email', 'bob@acme.test', '--org', 'Other'], /not a member/);
  });
});
