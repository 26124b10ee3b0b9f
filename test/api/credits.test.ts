import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { AppError } from '../../src/errors.js';
import { grant } from '../../src/ledger/ledger.js';

/**
 * Every microcredit figure in JSON is exact (issue 15: ten grants of 10^15 on a balance of 1 made the API
 * report 10000000000000000 while the ledger held 10000000000000001). The chosen rule: no balance goes
 * above Number.MAX_SAFE_INTEGER; a grant that would pass it is refused and writes nothing.
 */
let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

test('grants stop at Number.MAX_SAFE_INTEGER, and the API reports the balance exactly', async () => {
  const u = await srv.user({ microcredits: 1n });
  for (let i = 0; i < 9; i++) await srv.services.credits.grant(u.accountId, 10n ** 15n);
  const raw = await srv.request('GET', '/v1/credits/balance', { key: u.key });
  assert.match(raw.text, /"availableBalance":9000000000000001[,}]/);

  // The tenth would make 10000000000000001, past 2^53: refused, nothing written.
  const rows = async () => (await srv.services.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1`, [u.accountId])).rows[0].n;
  const before = await rows();
  await assert.rejects(srv.services.credits.grant(u.accountId, 10n ** 15n), (err: unknown) => err instanceof AppError && err.code === 'VALIDATION_ERROR' && /9007199254740991/.test(err.message));
  assert.equal(await rows(), before);

  // Up to the limit exactly is fine, and still exact in JSON.
  const room = BigInt(Number.MAX_SAFE_INTEGER) - 9_000_000_000_000_001n;
  await srv.services.credits.grant(u.accountId, room);
  const top = await srv.request('GET', '/v1/credits/balance', { key: u.key });
  assert.match(top.text, /"availableBalance":9007199254740991[,}]/);
  assert.equal(top.body.availableBalance, Number.MAX_SAFE_INTEGER);
  await assert.rejects(srv.services.credits.grant(u.accountId, 1n), /9007199254740991/);
  const ledger = (await srv.services.db.query(`SELECT sum(posted_delta)::text AS s FROM ledger_entries WHERE account_id = $1`, [u.accountId])).rows[0].s;
  assert.equal(ledger, String(Number.MAX_SAFE_INTEGER));
});

test('the OpenAPI document says how large a balance can be', async () => {
  const doc = (await srv.request('GET', '/v1/openapi.json')).body;
  const text = JSON.stringify(doc);
  assert.match(text, /9007199254740991 \(Number\.MAX_SAFE_INTEGER\)/);
});

test('a subscription\'s monthly grant fills a balance up to the limit instead of failing the scheduler', async () => {
  const u = await srv.user({ microcredits: 0n });
  let left = BigInt(Number.MAX_SAFE_INTEGER) - 10n;
  while (left > 0n) {
    const step = left > 10n ** 15n ? 10n ** 15n : left;
    await srv.services.credits.grant(u.accountId, step);
    left -= step;
  }
  const b = await srv.services.db.tx((tx) => grant(tx, u.accountId, 1_000n, { kind: 'subscription_grant', note: 'test period' }));
  assert.equal(b.posted, BigInt(Number.MAX_SAFE_INTEGER));
  const row = (await srv.services.db.query(`SELECT posted_delta FROM ledger_entries WHERE account_id = $1 AND kind = 'subscription_grant'`, [u.accountId])).rows;
  assert.deepEqual(row.map((r) => r.posted_delta), [10n]);
  // Full: nothing more is written.
  await srv.services.db.tx((tx) => grant(tx, u.accountId, 1_000n, { kind: 'subscription_grant' }));
  assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'subscription_grant'`, [u.accountId])).rows[0].n, 1);
});
