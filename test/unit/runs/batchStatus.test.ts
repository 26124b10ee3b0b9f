import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchStatus } from '../../../src/runs/batches.js';

const counts = (c: Partial<Record<'queued' | 'running' | 'completed' | 'failed' | 'canceled', number>>, size: number) =>
  ({ size, queued: 0, running: 0, completed: 0, failed: 0, canceled: 0, ...c });

test('a batch is QUEUED until a run starts, RUNNING until every run ended, then COMPLETED if any run completed', () => {
  assert.equal(batchStatus(counts({ queued: 3 }, 3)), 'QUEUED');
  assert.equal(batchStatus(counts({ queued: 2, completed: 1 }, 3)), 'RUNNING');
  assert.equal(batchStatus(counts({ running: 1, failed: 2 }, 3)), 'RUNNING');
  assert.equal(batchStatus(counts({ completed: 49, failed: 1 }, 50)), 'COMPLETED');
  assert.equal(batchStatus(counts({ failed: 2, canceled: 1 }, 3)), 'FAILED');
  assert.equal(batchStatus(counts({ canceled: 3 }, 3)), 'CANCELED');
});
