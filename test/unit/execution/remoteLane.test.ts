import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executionLimitsFromEnv } from '../../../src/config.js';
import { Permits, RemoteLane, releaseSlot, runInSlot } from '../../../src/execution/remoteLane.js';

test('a job holds its slot until it ends, or until it gives the slot back (a remote call)', async () => {
  let finish!: () => void;
  const ended = new Promise<void>((r) => (finish = r));
  const events: string[] = [];
  const { done, released } = runInSlot(async () => {
    await Promise.resolve();
    releaseSlot();
    await ended;
    events.push('done');
  });
  await released;
  events.push('released');
  finish();
  await done;
  assert.deepEqual(events, ['released', 'done']);
  // Without a release the slot is held to the end.
  const plain = runInSlot(async () => {});
  await plain.released;
  await plain.done;
});

test('permits: at most the limit at once, in order; a canceled waiter leaves the line', async () => {
  const p = new Permits(2);
  const ctl = new AbortController();
  const a = await p.acquire(ctl.signal);
  const b = await p.acquire(ctl.signal);
  const gone = new AbortController();
  const third = p.acquire(gone.signal);
  const fourth = p.acquire(ctl.signal);
  assert.equal(p.inUse, 2);
  assert.equal(p.queued, 2);
  gone.abort(new Error('canceled'));
  await assert.rejects(third, /canceled/);
  a();
  a(); // a second give-back of the same permit is ignored
  const d = await fourth;
  assert.equal(p.inUse, 2);
  b();
  d();
  assert.equal(p.inUse, 0);
});

test('the lane bounds each provider by its own limit', async () => {
  const lane = new RemoteLane({ inflight: 10, perProvider: 3, providers: { fal: 1 } });
  const ctl = new AbortController();
  let open = 0;
  let peak = 0;
  const call = async () => {
    open++;
    peak = Math.max(peak, open);
    await new Promise((r) => setTimeout(r, 5));
    open--;
  };
  await Promise.all(Array.from({ length: 6 }, () => lane.run('fal', ctl.signal, call)));
  assert.equal(peak, 1);
  peak = 0;
  await Promise.all(Array.from({ length: 6 }, () => lane.run('openai', ctl.signal, call)));
  assert.equal(peak, 3);
  assert.equal(lane.stats().held, 0);
});

test('settings: per-provider overrides by engine id', () => {
  const r = executionLimitsFromEnv({ ATELIER_PROVIDER_CONCURRENCY_FAL: '20', ATELIER_PROVIDER_CONCURRENCY: '50', ATELIER_REMOTE_INFLIGHT: '100' }).remote;
  assert.deepEqual(r, { inflight: 100, perProvider: 50, providers: { fal: 20 } });
  assert.equal(executionLimitsFromEnv({}).remote.inflight, 2000);
  assert.throws(() => executionLimitsFromEnv({ ATELIER_PROVIDER_CONCURRENCY_FAL: '0' }), /ATELIER_PROVIDER_CONCURRENCY_FAL/);
});
