import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMillions } from '../../../src/billing/format.js';

test('balance is formatted in millions with two decimals, rounding down', () => {
  assert.equal(formatMillions(26_170_000n), '26.17M');
  assert.equal(formatMillions(26_179_999n), '26.17M');
  assert.equal(formatMillions(0n), '0.00M');
  assert.equal(formatMillions(5_000n), '0.00M');
  assert.equal(formatMillions(10_000n), '0.01M');
  assert.equal(formatMillions(1_000_000_000_000n), '1000000.00M');
  assert.equal(formatMillions(-1_500_000n), '-1.50M');
});
