import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priceMicrocredits as price, PricingError, summarize } from '../../../src/pricing/price.js';

test('flat rules cost their amount, times option multipliers, rounded up', () => {
  assert.equal(price({ kind: 'flat', microcredits: 1000 }, {}), 1000);
  const rule = { kind: 'flat' as const, microcredits: 333, multipliers: [{ field: 'quality', basisPoints: { hd: 15_000 } }] };
  assert.equal(price(rule, { quality: 'hd' }), 500); // 499.5 rounds up
  assert.equal(price(rule, { quality: 'sd' }), 333);
  assert.equal(price(rule, {}), 333);
});

test('per image: count from num_images, else n, else 1; resolution tier multiplies', () => {
  const rule = { kind: 'per_unit' as const, unit: 'image' as const, microcreditsPerUnit: 40_000, multipliers: [{ field: 'resolution', basisPoints: { '1k': 10_000, '2k': 15_000, '4k': 20_000 } }] };
  assert.equal(price(rule, {}), 40_000);
  assert.equal(price(rule, { num_images: 3 }), 120_000);
  assert.equal(price(rule, { n: 2 }), 80_000);
  assert.equal(price(rule, { num_images: 4, resolution: '4k' }), 320_000);
  assert.equal(price(rule, { num_images: 1, resolution: '2k' }), 60_000);
});

test('per second uses the duration input, exactly for fractional seconds, with a minimum', () => {
  const rule = { kind: 'per_unit' as const, unit: 'second' as const, microcreditsPerUnit: 100_000, defaultQuantity: 5, minimum: 200_000 };
  assert.equal(price(rule, { duration: 10 }), 1_000_000);
  assert.equal(price(rule, {}), 500_000);
  assert.equal(price(rule, { duration: 2.5 }), 250_000);
  assert.equal(price(rule, { duration: 1 }), 200_000);
  assert.equal(price({ kind: 'per_unit', unit: 'second', microcreditsPerUnit: 3, inputField: 'length' }, { length: 0.1 }), 1);
});

test('per 1k characters counts code points of the text field', () => {
  const rule = { kind: 'per_unit' as const, unit: '1k_chars' as const, microcreditsPerUnit: 2000 };
  assert.equal(price(rule, { text: 'a'.repeat(1000) }), 2000);
  assert.equal(price(rule, { text: 'a'.repeat(1001) }), 2002);
  assert.equal(price({ ...rule, microcreditsPerUnit: 2001 }, { text: 'a'.repeat(1001) }), 2004); // 2003.001 rounds up
  assert.equal(price(rule, { text: '😀'.repeat(500) }), 1000);
});

test('per 1k tokens: prompt and system at 4 characters a token plus max_tokens', () => {
  const rule = { kind: 'per_unit' as const, unit: '1k_tokens' as const, microcreditsPerUnit: 10_000, defaultQuantity: 1000 };
  assert.equal(price(rule, { prompt: 'x'.repeat(4000), max_tokens: 1000 }), 20_000);
  assert.equal(price(rule, { prompt: 'x'.repeat(4000) }), 20_000);
  assert.equal(price(rule, { prompt: 'abc', system: 'de', max_tokens: 0 }), 20); // ceil(5/4)=2 tokens
});

test('per megapixel from width × height, or an assumed size times scale squared', () => {
  const rule = { kind: 'per_unit' as const, unit: 'megapixel' as const, microcreditsPerUnit: 10_000, defaultQuantity: 0.25 };
  assert.equal(price(rule, { width: 1000, height: 1000 }), 10_000);
  assert.equal(price(rule, { width: 1920, height: 1080 }), 20_736);
  assert.equal(price(rule, { scale: 4 }), 40_000);
  assert.equal(price(rule, {}), 2_500);
});

test('the same rule and input always give the same integer', () => {
  const rule = { kind: 'per_unit' as const, unit: 'second' as const, microcreditsPerUnit: 7, multipliers: [{ field: 'q', basisPoints: { a: 3_333 } }] };
  for (let d = 0; d < 200; d += 0.1) {
    const p = price(rule, { duration: Number(d.toFixed(1)), q: 'a' });
    assert.ok(Number.isSafeInteger(p) && p >= 0);
    assert.equal(p, price(rule, { duration: Number(d.toFixed(1)), q: 'a' }));
  }
});

test('broken rules and absurd inputs throw PricingError instead of returning nonsense', () => {
  assert.throws(() => price({ kind: 'flat', microcredits: 1.5 }, {}), PricingError);
  assert.throws(() => price({ kind: 'per_unit', unit: 'second', microcreditsPerUnit: 1 }, { duration: -1 }), PricingError);
  assert.throws(() => price({ kind: 'per_unit', unit: 'image', microcreditsPerUnit: 2 ** 52 }, { num_images: 4 }), PricingError);
});

test('summaries read as a person would say them', () => {
  assert.equal(summarize({ kind: 'flat', microcredits: 1000 }), '1,000 microcredits per run');
  assert.equal(
    summarize({ kind: 'per_unit', unit: 'image', microcreditsPerUnit: 40_000, multipliers: [{ field: 'resolution', basisPoints: { '1k': 10_000, '2k': 15_000 } }] }),
    '40,000 microcredits per image (×1.5 when resolution is 2k)',
  );
});
