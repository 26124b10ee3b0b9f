import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer } from '../helpers/server.js';
import { AddressLimiter } from '../../src/http/addressLimiter.js';

// The hosted catalog is public; ours too by default, limited per client address, and an operator may
// require a key (ATELIER_CATALOG_REQUIRES_KEY=1).

test('AddressLimiter: n requests per address per UTC minute, each address on its own, a new minute starts over', () => {
  let now = Date.UTC(2026, 0, 1, 12, 0, 10);
  const l = new AddressLimiter(2, () => now);
  assert.equal(l.take('a').admitted, true);
  assert.equal(l.take('a').admitted, true);
  const third = l.take('a');
  assert.equal(third.admitted, false);
  assert.equal(third.window.resetMs, Date.UTC(2026, 0, 1, 12, 1, 0));
  assert.equal(third.window.used, 2);
  assert.equal(l.take('b').admitted, true);
  now = Date.UTC(2026, 0, 1, 12, 1, 0);
  assert.equal(l.take('a').admitted, true);
});

describe('keyless catalog requests are limited per address', () => {
  test('past the limit: 429 RATE_LIMITED with Retry-After, in both forms alike; a key still gets through', async () => {
    const srv = await startTestServer({ ATELIER_CATALOG_RATE_PER_MINUTE: '3' });
    after(() => srv.close());
    const { key } = await srv.user();
    // Requests alternate between the forms; they share the address's count. A minute may turn over
    // during the loop, so the test only needs the limit to bite within a few more requests.
    let admitted = 0;
    let limited;
    for (let i = 0; i < 10 && !limited; i++) {
      const res = await srv.request('GET', `${i % 2 ? '/api' : ''}/v1/models/catalog`);
      if (res.status === 200) admitted++;
      else limited = res;
    }
    assert.ok(limited, 'the limit never bit');
    assert.ok(admitted >= 3);
    const b = expectErrorBody(limited, 429, 'RATE_LIMITED');
    assert.match(b.message, /catalog/);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await srv.request('GET', '/api/v1/models/catalog', { key })).status, 200);
  });

  test('ATELIER_CATALOG_REQUIRES_KEY=1: 401 without a key, 200 with one', async () => {
    const srv = await startTestServer({ ATELIER_CATALOG_REQUIRES_KEY: '1' });
    after(() => srv.close());
    const { key } = await srv.user();
    for (const base of ['', '/api']) {
      expectErrorBody(await srv.request('GET', `${base}/v1/models/catalog`), 401, 'UNAUTHORIZED');
      assert.equal((await srv.request('GET', `${base}/v1/models/catalog`, { key })).status, 200);
    }
  });
});
