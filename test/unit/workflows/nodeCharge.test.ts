import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdAdjustment } from '../../../src/workflows/readyNode.js';
import { pricedAtDefault, pricingFields } from '../../../src/pricing/fields.js';
import { totalMicrocredits } from '../../../src/catalog/estimate.js';
import { AppError } from '../../../src/errors.js';
import type { PricingRule } from '../../../src/pricing/types.js';

test('a ready node\'s hold moves to its price: the difference reserved, or the surplus released', () => {
  assert.deepEqual(holdAdjustment(7_500n, 90_000n), { more: 82_500n, surplus: 0n });
  assert.deepEqual(holdAdjustment(7_500n, 3_000n), { more: 0n, surplus: 4_500n });
  assert.deepEqual(holdAdjustment(7_500n, 7_500n), { more: 0n, surplus: 0n });
  assert.deepEqual(holdAdjustment(0n, 200n), { more: 200n, surplus: 0n });
});

test('the fields a pricing rule reads, and which of them an estimate priced at their defaults', () => {
  const perSecond: PricingRule = { kind: 'per_unit', unit: 'second', microcreditsPerUnit: 1500, inputField: 'duration', defaultQuantity: 5 };
  assert.deepEqual(pricingFields(perSecond), ['duration']);
  assert.deepEqual(pricedAtDefault(perSecond, { width: 64 }), ['duration']);
  assert.deepEqual(pricedAtDefault(perSecond, { duration: 60 }), []);
  const chars: PricingRule = { kind: 'per_unit', unit: '1k_chars', microcreditsPerUnit: 40, multipliers: [{ field: 'voice', basisPoints: { hd: 20000 } }] };
  assert.deepEqual(pricingFields(chars).sort(), ['text', 'voice']);
  assert.deepEqual(pricedAtDefault(chars, { voice: 'hd' }), ['text']);
  // Only fields the model has: an image count is `n` or `num_images`, whichever the mode defines.
  const images: PricingRule = { kind: 'per_unit', unit: 'image', microcreditsPerUnit: 40_000 };
  assert.deepEqual(pricedAtDefault(images, {}, ['prompt', 'num_images']), ['num_images']);
  assert.deepEqual(pricedAtDefault({ kind: 'flat', microcredits: 200 }, {}), []);
});

test('estimate totals are exact integers, refused past Number.MAX_SAFE_INTEGER', () => {
  assert.equal(totalMicrocredits([{ microcredits: 1 }, { microcredits: 2 }]), 3);
  const big = Number.MAX_SAFE_INTEGER - 1;
  assert.throws(() => totalMicrocredits([{ microcredits: big }, { microcredits: 5 }]), (e: unknown) => e instanceof AppError && e.code === 'VALIDATION_ERROR');
});
