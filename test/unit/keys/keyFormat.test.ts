import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKey, hashKey, hashesEqual, looksLikeKey, visiblePrefix } from '../../../src/keys/keyFormat.js';
import { rateHeaders, retryAfterSeconds, tighterWindow } from '../../../src/keys/rateWindow.js';
import { randomBase62 } from '../../../src/ids.js';
import { hashPassword, verifyPassword } from '../../../src/accounts/password.js';

test('keys are gx_ + 40 base62 characters, unique, and recognised', () => {
  const keys = new Set(Array.from({ length: 1000 }, generateKey));
  assert.equal(keys.size, 1000);
  for (const k of keys) {
    assert.match(k, /^gx_[0-9A-Za-z]{40}$/);
    assert.ok(looksLikeKey(k));
  }
  assert.ok(!looksLikeKey('gx_short'));
  assert.ok(!looksLikeKey('sk_' + 'a'.repeat(40)));
  assert.ok(!looksLikeKey('gx_' + 'a'.repeat(39) + '!'));
});

test('visible prefix is the 8 characters after gx_', () => {
  assert.equal(visiblePrefix('gx_ABCDEFGHrest-of-key'), 'ABCDEFGH');
});

test('hashes are SHA-256 and compare in constant time', () => {
  const k = generateKey();
  assert.equal(hashKey(k).length, 32);
  assert.ok(hashesEqual(hashKey(k), hashKey(k)));
  assert.ok(!hashesEqual(hashKey(k), hashKey(k + 'x')));
  assert.ok(!hashesEqual(hashKey(k), Buffer.alloc(31)));
});

test('base62 characters are roughly uniform (no modulo bias)', () => {
  const counts = new Map<string, number>();
  const s = randomBase62(62_000);
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  for (const n of counts.values()) assert.ok(n > 800 && n < 1200, `count ${n} far from 1000`);
});

test('rate headers report the tighter window', () => {
  const minute = { limit: 60, used: 10, resetMs: 1_000 };
  const day = { limit: 1000, used: 995, resetMs: 86_400_000 };
  assert.equal(tighterWindow(minute, day), day);
  assert.deepEqual(rateHeaders(minute, day), { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '5', 'X-RateLimit-Reset': '86400000' });
  const h = rateHeaders({ limit: 5, used: 7, resetMs: 60_000 }, { limit: 100, used: 7, resetMs: 86_400_000 });
  assert.equal(h['X-RateLimit-Remaining'], '0');
  assert.equal(h['X-RateLimit-Reset'], '60000');
});

test('Retry-After waits for the exhausted window and is at least 1 s', () => {
  assert.equal(retryAfterSeconds({ limit: 5, used: 5, resetMs: 30_500 }, { limit: 9, used: 5, resetMs: 86_400_000 }, 0), 31);
  assert.equal(retryAfterSeconds({ limit: 5, used: 5, resetMs: 30_000 }, { limit: 5, used: 5, resetMs: 90_000 }, 0), 90);
  assert.equal(retryAfterSeconds({ limit: 5, used: 5, resetMs: 100 }, { limit: 9, used: 1, resetMs: 1e9 }, 99), 1);
});

test('passwords hash with scrypt and verify only the right password', async () => {
  const h = await hashPassword('correct horse');
  assert.match(h, /^scrypt\$32768\$8\$1\$/);
  assert.ok(await verifyPassword('correct horse', h));
  assert.ok(!(await verifyPassword('wrong horse', h)));
  assert.ok(!(await verifyPassword('x', 'not-a-hash')));
  assert.notEqual(await hashPassword('same'), await hashPassword('same'));
});

test('a refused request reports its tighter window as exhausted even from a stale snapshot', async () => {
  const { asRefused } = await import('../../../src/keys/rateWindow.js');
  const stale = asRefused({ limit: 50, used: 49, resetMs: 60_000 }, { limit: 1000, used: 49, resetMs: 86_400_000 });
  assert.equal(stale.minute.used, 50);
  assert.equal(rateHeaders(stale.minute, stale.day)['X-RateLimit-Remaining'], '0');
  const dayFull = asRefused({ limit: 50, used: 3, resetMs: 60_000 }, { limit: 5, used: 4, resetMs: 86_400_000 });
  assert.equal(dayFull.day.used, 5);
  assert.equal(dayFull.minute.used, 3);
});
