import { test } from 'node:test';
import assert from 'node:assert/strict';
import { giveBackOf, LEASE_TTL_MS, leaseCap, leaseValidUntil, leaseWanted, MAX_LEASE, takeFromLease, type Lease } from '../../../src/keys/quotaLease.js';

const limits = { perMinute: 10_000, perDay: 100_000 };

function lease(over: Partial<Lease> = {}): Lease {
  return { ...limits, minuteStartMs: 60_000, dayStartMs: 0, minuteUsed: 100, dayUsed: 500, left: 3, validUntil: 1_000, clockOffsetMs: 5_000, ...over };
}

test('small limits get no lease: every request is counted by the database', () => {
  assert.equal(leaseCap({ perMinute: 7, perDay: 1_000 }), 0);
  assert.equal(leaseCap({ perMinute: 31, perDay: 100_000 }), 0);
  assert.equal(leaseCap({ perMinute: 10_000, perDay: 640 }), 20); // the tighter window decides
  assert.equal(leaseCap(limits), MAX_LEASE);
});

test('a lease is sized to what the key used in one lifetime at its recent rate', () => {
  assert.equal(leaseWanted(limits, 5, undefined), 0, 'first sight of a key: no history, no lease');
  assert.equal(leaseWanted(limits, 1, 1_000), 0, 'one request a second: a lease would only go back unused');
  assert.equal(leaseWanted(limits, 80, 200), 100);
  assert.equal(leaseWanted(limits, 10_000, 10), MAX_LEASE);
  assert.equal(leaseWanted({ perMinute: 7, perDay: 100 }, 1_000, 1), 0);
});

test('a lease ends at its lifetime or at its minute window end, measured from when the statement was sent', () => {
  assert.equal(leaseValidUntil(500, 120_000, 120_000), 500 + LEASE_TTL_MS);
  assert.equal(leaseValidUntil(500, 179_900, 120_000), 600, '100 ms left in the window');
});

test('requests taken from a lease get their own places in the windows', () => {
  const l = lease();
  const a = takeFromLease(l, limits, 10)!;
  const b = takeFromLease(l, limits, 11)!;
  assert.deepEqual([a.admitted, a.minute.used, a.day.used, a.minute.resetMs], [true, 101, 501, 120_000]);
  assert.equal(b.minute.used, 102);
  assert.equal(b.nowMs, 5_011);
  assert.equal(l.left, 1);
  assert.deepEqual(giveBackOf(l), { units: 1, minuteStartMs: 60_000, dayStartMs: 0 });
  takeFromLease(l, limits, 12);
  assert.equal(takeFromLease(l, limits, 13), undefined, 'used up');
  assert.equal(giveBackOf(l), undefined);
});

test('an ended lease, or one for other limits, serves nothing', () => {
  assert.equal(takeFromLease(lease(), limits, 1_000), undefined);
  assert.equal(takeFromLease(lease(), { perMinute: 500, perDay: 100_000 }, 10), undefined);
  assert.equal(takeFromLease(undefined, limits, 10), undefined);
});
