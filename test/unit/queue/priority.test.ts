import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fairPriority, jobPriority, MIN_PRIORITY, PRIORITY_BAND } from '../../../src/queue/fairness.js';
import { estimateStart, smoothPace } from '../../../src/queue/positions.js';

test('a higher priority level outranks any fair share of a lower one; within a level fair shares decide', () => {
  // The deepest backlog at level 1 still goes before an account's first run at level 0.
  assert.ok(jobPriority(1, 1e9) > jobPriority(0, 0));
  assert.ok(jobPriority(0, 1e9) > jobPriority(-1, 0));
  assert.equal(jobPriority(0, 3), fairPriority(3));
  assert.equal(jobPriority(2, 0), 2 * PRIORITY_BAND);
  // Levels are clamped to -10..10, so the figure stays inside pg-boss's integer column.
  assert.equal(jobPriority(99, 0), 10 * PRIORITY_BAND);
  assert.ok(jobPriority(-99, 1e9) >= -(2 ** 31));
  assert.equal(jobPriority(-10, 1e9), -10 * PRIORITY_BAND + MIN_PRIORITY);
  assert.ok(PRIORITY_BAND > -MIN_PRIORITY);
});

test('the queue\'s pace is smoothed toward the recent past, and an estimate needs a known pace', () => {
  assert.equal(smoothPace(undefined, 4, 1), 4);
  const p = smoothPace(4, 0, 1);
  assert.ok(p < 4 && p > 3.9, String(p));
  // A long gap weighs the new measurement almost fully.
  assert.ok(smoothPace(4, 0, 3600) < 0.001);
  assert.equal(estimateStart(0, 3, undefined), null);
  assert.equal(estimateStart(0, 3, 0), null);
  // Position 3 at 2 runs a second: the 4 runs up to and including it leave in 2 s.
  assert.equal(estimateStart(Date.UTC(2026, 0, 1), 3, 2), '2026-01-01T00:00:02.000Z');
});
