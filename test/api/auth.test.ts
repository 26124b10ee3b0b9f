import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

describe('authentication', () => {
  test('a valid key is accepted and carries rate-limit headers', async () => {
    const u = await srv.user();
    const res = await srv.request('GET', '/v1/credits/balance', { key: u.key });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-ratelimit-remaining'));
    assert.match(res.headers.get('x-ratelimit-reset')!, /^\d{13}$/);
    assert.match(res.headers.get('x-request-id')!, /^req_/);
  });

  test('missing, malformed, wrong-scheme and unknown keys get 401 UNAUTHORIZED', async () => {
    const u = await srv.user();
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${u.key}` },
      { authorization: u.key },
      { authorization: 'Bearer gx_short' },
      { authorization: `Bearer ${u.key}x` },
      { authorization: `Bearer gx_${'A'.repeat(40)}` },
      { authorization: `Bearer ${u.key} extra` },
    ];
    for (const headers of cases) {
      const res = await srv.request('GET', '/v1/credits/balance', { headers });
      expectErrorBody(res, 401, 'UNAUTHORIZED');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
  });

  test('unknown /v1 routes need a key too, then answer 404 in the error body', async () => {
    expectErrorBody(await srv.request('GET', '/v1/does-not-exist'), 401, 'UNAUTHORIZED');
    const u = await srv.user();
    expectErrorBody(await srv.request('GET', '/v1/does-not-exist', { key: u.key }), 404, 'NOT_FOUND');
  });

  test('a revoked key stops working at once; other keys of the user keep working', async () => {
    const u = await srv.user();
    const user = await srv.services.accounts.requireByEmail(u.email);
    const other = await srv.services.keys.create(user, { label: 'other' });
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).status, 200);
    await srv.services.keys.revoke(user, 'test');
    expectErrorBody(await srv.request('GET', '/v1/credits/balance', { key: u.key }), 401, 'UNAUTHORIZED');
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: other.key })).status, 200);
  });

  test('an expired key answers 401 and lists as expired', async () => {
    const u = await srv.user();
    const user = await srv.services.accounts.requireByEmail(u.email);
    const k = await srv.services.keys.create(user, { label: 'short-lived', expiresAt: new Date(Date.now() + 1500) });
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
    // Move the expiry into the past instead of sleeping. A change made in plain SQL reaches the process's key
    // cache by the trigger's notification, an instant later: poll for it.
    await srv.services.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [k.id]);
    let res = await srv.request('GET', '/v1/credits/balance', { key: k.key });
    for (let i = 0; i < 100 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await srv.request('GET', '/v1/credits/balance', { key: k.key });
    }
    expectErrorBody(res, 401, 'UNAUTHORIZED');
    const listed = (await srv.services.keys.list(user)).find((x) => x.id === k.id)!;
    assert.equal(listed.state, 'expired');
  });

  test('the database holds only the hash and the visible prefix of a key', async () => {
    const u = await srv.user();
    const rows = (await srv.services.db.query(`SELECT row_to_json(k)::text AS j FROM api_keys k`)).rows;
    const dump = rows.map((r) => r.j).join('\n');
    assert.ok(!dump.includes(u.key));
    assert.ok(!dump.includes(u.key.slice(3)));
    assert.ok(dump.includes(u.key.slice(3, 11)), 'prefix is stored');
  });
});

describe('rate limits', () => {
  test('200 parallel requests on a 50/minute key admit exactly 50', async () => {
    const u = await srv.user({ perMinute: 50 });
    const results = await Promise.all(Array.from({ length: 200 }, () => srv.request('GET', '/v1/credits/balance', { key: u.key })));
    // Windows are calendar minutes: on a loaded machine the 200 requests can straddle a minute's end, and
    // then each minute admits its own 50. Exactness is per window (the reset each answer names).
    const windows = new Map<string, { ok: number; limited: number }>();
    for (const r of results) {
      const w = windows.get(r.headers.get('x-ratelimit-reset')!) ?? { ok: 0, limited: 0 };
      if (r.status === 200) w.ok++;
      else if (r.status === 429) w.limited++;
      windows.set(r.headers.get('x-ratelimit-reset')!, w);
    }
    const limited = results.filter((r) => r.status === 429);
    assert.equal(limited.length + results.filter((r) => r.status === 200).length, 200);
    for (const [reset, w] of windows) {
      assert.ok(w.ok <= 50, `window ending ${reset}: ${w.ok} admitted`);
      if (w.limited > 0) assert.equal(w.ok, 50, `window ending ${reset}: refused some after admitting only ${w.ok}`);
    }
    if (windows.size === 1) assert.equal(limited.length, 150);
    for (const r of limited) {
      expectErrorBody(r, 429, 'RATE_LIMITED');
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    }
  });

  test('remaining counts down from the limit and the reset is the end of the minute', async () => {
    const u = await srv.user({ perMinute: 5 });
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await srv.request('GET', '/v1/credits/balance', { key: u.key });
      seen.push(Number(r.headers.get('x-ratelimit-remaining')));
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      assert.equal(reset % 60_000, 0);
      assert.ok(reset > Date.now() - 2000 && reset <= Date.now() + 61_000);
    }
    // Requests may straddle a minute boundary; within one window the count goes down by one each time.
    assert.ok(seen[0] === 4 && (seen[1] === 3 || seen[1] === 4));
  });

  test('the per-day window limits too, and its reset is the next UTC midnight', async () => {
    const u = await srv.user({ perMinute: 100, perDay: 3 });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await srv.request('GET', '/v1/credits/balance', { key: u.key });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const reset = Number(last!.headers.get('x-ratelimit-reset'));
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    assert.equal(reset, midnight.getTime());
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
  });

  test('refused requests do not use up the other window', async () => {
    const u = await srv.user({ perMinute: 2, perDay: 4 });
    for (let i = 0; i < 6; i++) await srv.request('GET', '/v1/credits/balance', { key: u.key });
    const row = (await srv.services.db.query(
      `SELECT s.day_count FROM key_windows s JOIN api_keys k ON k.id = s.key_id JOIN users u ON u.id = k.user_id WHERE u.email = $1`, [u.email])).rows[0];
    assert.ok(row.day_count <= 4 && row.day_count >= 2, `day count ${row.day_count}`);
  });

  test('each key has its own windows', async () => {
    const a = await srv.user({ perMinute: 1 });
    const b = await srv.user({ perMinute: 1 });
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: a.key })).status, 200);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: a.key })).status, 429);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: b.key })).status, 200);
  });
});
