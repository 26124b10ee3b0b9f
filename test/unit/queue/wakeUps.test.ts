import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WakeUps } from '../../../src/queue/wakeUps.js';

test('a job wake-up goes to one idle loop, taking turns, never to a busy one', () => {
  const w = new WakeUps();
  for (const id of ['a', 'b', 'c']) w.add(id);
  assert.equal(w.onNotify(), 'a');
  assert.equal(w.onNotify(), 'b');
  assert.equal(w.onNotify(), 'c');
  assert.equal(w.onNotify(), 'a');
  w.taken('b');
  w.taken('c');
  assert.equal(w.onNotify(), 'a');
  assert.equal(w.onNotify(), 'a');
  w.taken('a');
  assert.equal(w.onNotify(), undefined, 'every loop busy: each asks again when its job ends');
});

test('a loop that found a job passes the wake-up on to one more idle loop, until none is idle', () => {
  const w = new WakeUps();
  for (const id of ['a', 'b', 'c']) w.add(id);
  const woken = w.onNotify()!;
  // One NOTIFY stood for three jobs: each loop that finds one wakes the next.
  const second = w.taken(woken)!;
  const third = w.taken(second)!;
  assert.deepEqual(new Set([woken, second, third]), new Set(['a', 'b', 'c']));
  assert.equal(w.taken(third), undefined);
  w.done(second);
  assert.equal(w.onNotify(), second);
  w.remove(second);
  assert.equal(w.onNotify(), undefined);
});
