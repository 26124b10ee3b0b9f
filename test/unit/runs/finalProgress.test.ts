// runs/finalProgress.ts: a run's last progress report waits for the settle to write it, and is written
// on its own only when the settle does not come (an engine still working after it said it was done).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { FinalProgress } from '../../../src/runs/finalProgress.js';

test('reports below 1 are written at once, the final one is held for the settle and never written', async () => {
  const written: Array<[number, string | null]> = [];
  const p = new FinalProgress((f, m) => written.push([f, m]), 30);
  p.report(0.5, '8 tokens');
  p.report(1, 'done');
  assert.deepEqual(written, [[0.5, '8 tokens']]);
  assert.deepEqual(p.take(), { fraction: 1, message: 'done' });
  await sleep(60);
  assert.deepEqual(written, [[0.5, '8 tokens']]);
  assert.equal(p.take(), undefined);
});

test('a final report the settle does not take in time is written as any other, once', async () => {
  const written: Array<[number, string | null]> = [];
  const p = new FinalProgress((f, m) => written.push([f, m]), 20);
  p.report(1, null);
  await sleep(60);
  assert.deepEqual(written, [[1, null]]);
  assert.equal(p.take(), undefined);
});

test('a report after a held one writes the held one first, in order', () => {
  const written: Array<[number, string | null]> = [];
  const p = new FinalProgress((f, m) => written.push([f, m]), 1_000);
  p.report(1, 'first pass done');
  p.report(0.2, 'second pass');
  assert.deepEqual(written, [[1, 'first pass done'], [0.2, 'second pass']]);
  assert.equal(p.take(), undefined);
});
