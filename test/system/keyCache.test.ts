import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/server.js';
import { twoApis, type RoleProcess } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';

// Issue 17 item 1: each API process caches key records and learns of changes by LISTEN/NOTIFY. Process A is
// this test process's server (where keys are changed, as the web app or CLI would); process B is a
// separate `atelier serve --role api` on the same database, which must notice.
let a: TestServer;
let b: RoleProcess;
let apis: Awaited<ReturnType<typeof twoApis>> | undefined;

before(async () => {
  apis = await twoApis();
  ({ a, b } = apis);
});

after(async () => {
  await apis?.close();
});

const balanceOn = (url: string, key: string) =>
  fetch(`${url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }));

/** Polls until `check` holds; generous limit for a loaded machine (the goal, one second, is not asserted). */
async function eventually<T>(what: string, probe: () => Promise<T>, check: (v: T) => boolean, limitMs = 15_000): Promise<T> {
  let v!: T;
  await until(what, async () => check((v = await probe())), limitMs, () => `still ${JSON.stringify(v).slice(0, 300)}\n${b.tail()}`);
  return v;
}

async function newKey(opts: { perMinute?: number; perDay?: number; expiresAt?: Date; org?: string } = {}) {
  const u = await a.user({ perMinute: opts.perMinute, perDay: opts.perDay, org: opts.org });
  const user = await a.services.accounts.requireByEmail(u.email);
  if (opts.expiresAt) {
    const k = await a.services.keys.create(user, { label: 'expiring', expiresAt: opts.expiresAt, perMinute: opts.perMinute, perDay: opts.perDay });
    return { ...u, user, key: k.key, keyId: k.id };
  }
  const keyId = (await a.services.keys.list(user)).find((k) => k.label === 'test')!.id;
  return { ...u, user, keyId };
}

describe('key cache across API processes', () => {
  test('a repeated key is answered from the cache, without a lookup', async () => {
    const k = await newKey();
    assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
    const before = { ...a.services.keys.cache.stats };
    for (let i = 0; i < 5; i++) assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
    const stats = a.services.keys.cache.stats;
    assert.equal(stats.hits - before.hits, 5);
    assert.equal(stats.misses - before.misses, 0);
  });

  test('a key revoked through one API process is refused by the other', async () => {
    const k = await newKey();
    const other = await a.services.keys.create(k.user, { label: 'other' });
    // B has the key cached (it answered with it), and so has A.
    assert.equal((await balanceOn(b.url!, k.key)).status, 200);
    assert.equal((await balanceOn(b.url!, k.key)).status, 200);
    assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
    await a.services.keys.revokeById(k.user, k.keyId);
    // A (where it was revoked) refuses it at once; B once the notification arrives.
    assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 401);
    const refused = await eventually('B refusing the revoked key', () => balanceOn(b.url!, k.key), (r) => r.status === 401);
    assert.equal(refused.body.code, 'UNAUTHORIZED');
    // The user's other key is untouched.
    assert.equal((await balanceOn(b.url!, other.key)).status, 200);
  });

  test('an edit of a key\'s limits reaches the other process\'s cache', async () => {
    const k = await newKey({ perMinute: 1 });
    // Start early in a minute so the two requests below share one window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const first = await balanceOn(b.url!, k.key);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit'), '1');
    assert.equal((await balanceOn(b.url!, k.key)).status, 429);
    await a.services.keys.update(k.user, k.keyId, { perMinute: 100 });
    const admitted = await eventually('B admitting under the raised limit', () => balanceOn(b.url!, k.key), (r) => r.status === 200);
    assert.equal(admitted.headers.get('x-ratelimit-limit'), '100');
    // Two counted so far in this window, this one the second admitted... or the window turned meanwhile.
    assert.ok(['98', '99'].includes(admitted.headers.get('x-ratelimit-remaining')!), admitted.headers.get('x-ratelimit-remaining')!);
  });

  test('a plain-SQL change (no service call) reaches both processes by the trigger\'s notification', async () => {
    const k = await newKey();
    assert.equal((await balanceOn(b.url!, k.key)).status, 200);
    assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
    await a.services.db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [k.keyId]);
    await eventually('B refusing', () => balanceOn(b.url!, k.key), (r) => r.status === 401);
    await eventually('A refusing', () => a.request('GET', '/v1/credits/balance', { key: k.key }), (r) => r.status === 401);
  });

  test('a cached key expires on time by its cached expires_at, with nothing changed in the database', async () => {
    const k = await newKey({ expiresAt: new Date(Date.now() + 3000) });
    assert.equal((await balanceOn(b.url!, k.key)).status, 200);
    const invalidations = a.services.keys.cache.stats.invalidations;
    const refused = await eventually('B refusing the expired key', () => balanceOn(b.url!, k.key), (r) => r.status === 401);
    assert.equal(refused.body.code, 'UNAUTHORIZED');
    // Nothing told the processes: no notification was needed.
    assert.equal(a.services.keys.cache.stats.invalidations, invalidations);
    assert.equal((await a.request('GET', '/v1/credits/balance', { key: k.key })).status, 401);
  });

  test('switching the user\'s active organization changes the account a cached key acts for', async () => {
    const k = await newKey({ org: `org-${process.pid}-${Date.now()}` });
    const inOrg = await balanceOn(b.url!, k.key);
    assert.equal(inOrg.status, 200);
    assert.equal(inOrg.body.isOrganization, true);
    await a.services.accounts.setActiveOrganization(k.email, null);
    const personal = await eventually('B acting for the personal account', () => balanceOn(b.url!, k.key), (r) => r.body.isOrganization === false);
    assert.equal(personal.status, 200);
  });
});
