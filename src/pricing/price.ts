import type { OptionMultiplier, PricingRule } from './types.js';
import { hostedPrice, HostedPricingError } from './hosted.js';

/**
 * The one pricing function: (rule, validated input) → integer microcredits. Estimates, the pricing
 * endpoint's examples and the charge of every run all call this, so they cannot disagree. Pure.
 *
 * Arithmetic is exact: quantities are rationals of bigints, the result is rounded up once at the end.
 */
export class PricingError extends Error {
  override name = 'PricingError';
}

interface Rational {
  num: bigint;
  den: bigint;
}

const ONE: Rational = { num: 1n, den: 1n };
const BASIS = 10_000n;
/** Above this a "price" is a bug or an absurd input; refuse rather than overflow a JSON number. */
const MAX_PRICE = 2n ** 53n - 1n;

/** A finite non-negative decimal number as an exact rational (2.5 → 5/2). */
function rational(value: number, what: string): Rational {
  if (!Number.isFinite(value) || value < 0) throw new PricingError(`${what} must be a non-negative number`);
  const [intPart, frac = ''] = value.toFixed(6).split('.');
  const den = 10n ** BigInt(frac.length);
  return { num: BigInt(intPart! + frac), den };
}

function textLength(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + textLength(x), 0);
  return 0;
}

function numberAt(input: Record<string, unknown>, field: string): number | undefined {
  const v = input[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function quantity(rule: Extract<PricingRule, { kind: 'per_unit' }>, input: Record<string, unknown>): Rational {
  const fallback = rule.defaultQuantity ?? 1;
  switch (rule.unit) {
    case 'image': {
      const n = rule.inputField ? numberAt(input, rule.inputField) : numberAt(input, 'num_images') ?? numberAt(input, 'n');
      return rational(n ?? fallback, 'image count');
    }
    case 'second':
      return rational(numberAt(input, rule.inputField ?? 'duration') ?? fallback, 'duration');
    case '1k_chars':
      return { num: BigInt(textLength(input[rule.inputField ?? 'text'])), den: 1000n };
    case '1k_tokens': {
      // Prompt tokens estimated at 4 characters each (rounded up), plus the most the model may write.
      const chars = textLength(input[rule.inputField ?? 'prompt']) + textLength(input.system) + textLength(input.messages);
      const promptTokens = Math.ceil(chars / 4);
      const maxTokens = Math.ceil(numberAt(input, 'max_tokens') ?? fallback);
      if (maxTokens < 0) throw new PricingError('max_tokens must be a non-negative number');
      return { num: BigInt(promptTokens + maxTokens), den: 1000n };
    }
    case 'megapixel': {
      const w = numberAt(input, 'width');
      const h = numberAt(input, 'height');
      if (w !== undefined && h !== undefined) {
        const rw = rational(w, 'width');
        const rh = rational(h, 'height');
        return { num: rw.num * rh.num, den: rw.den * rh.den * 1_000_000n };
      }
      // Output size unknown before the run: the rule's assumed input megapixels times the scale squared.
      const mp = rational(fallback, 'megapixels');
      const scale = rational(numberAt(input, 'scale') ?? 1, 'scale');
      return { num: mp.num * scale.num * scale.num, den: mp.den * scale.den * scale.den };
    }
  }
}

function multiplier(multipliers: OptionMultiplier[] | undefined, input: Record<string, unknown>): Rational {
  let m = ONE;
  for (const mult of multipliers ?? []) {
    const value = input[mult.field];
    const bp = value === undefined || value === null ? undefined : mult.basisPoints[String(value)];
    if (bp === undefined) continue; // values without a listed factor cost the base price
    if (!Number.isInteger(bp) || bp < 0) throw new PricingError(`multiplier for ${mult.field}=${String(value)} is not whole basis points`);
    m = { num: m.num * BigInt(bp), den: m.den * BASIS };
  }
  return m;
}

function ceilDiv(num: bigint, den: bigint): bigint {
  return (num + den - 1n) / den;
}

export function priceMicrocredits(rule: PricingRule, input: Record<string, unknown>): number {
  let total: bigint;
  if (rule.kind === 'hosted') {
    let q;
    try {
      q = hostedPrice(rule, input);
    } catch (err) {
      if (err instanceof HostedPricingError) throw new PricingError(err.message);
      throw err;
    }
    // Rounded up once; a thousandth of a microcredit of decimal noise in the hosted amounts is not charged.
    total = q.num * 1000n <= q.den ? 0n : ceilDiv(q.num * 1000n - q.den, q.den * 1000n);
    if (total > MAX_PRICE) throw new PricingError('price exceeds the largest representable amount');
    return Number(total);
  }
  const m = multiplier(rule.multipliers, input);
  if (rule.kind === 'flat') {
    if (!Number.isInteger(rule.microcredits) || rule.microcredits < 0) throw new PricingError('flat price must be a whole number');
    total = ceilDiv(BigInt(rule.microcredits) * m.num, m.den);
  } else {
    if (!Number.isInteger(rule.microcreditsPerUnit) || rule.microcreditsPerUnit < 0) throw new PricingError('unit price must be a whole number');
    const q = quantity(rule, input);
    total = ceilDiv(BigInt(rule.microcreditsPerUnit) * q.num * m.num, q.den * m.den);
    if (rule.minimum !== undefined && total < BigInt(rule.minimum)) total = BigInt(rule.minimum);
  }
  if (total > MAX_PRICE) throw new PricingError('price exceeds the largest representable amount');
  return Number(total);
}

const UNIT_WORDS: Record<string, string> = {
  second: 'second', image: 'image', '1k_chars': '1,000 characters', '1k_tokens': '1,000 tokens', megapixel: 'megapixel',
};

/** A one-line human summary of a rule, e.g. "40,000 microcredits per image (×1.5 when resolution is 2k)". */
export function summarize(rule: PricingRule): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (rule.kind === 'hosted') return `priced as the hosted service prices it (${rule.unit.replace('_', ' ')} rule)`;
  let s = rule.kind === 'flat'
    ? `${n(rule.microcredits)} microcredits per run`
    : `${n(rule.microcreditsPerUnit)} microcredits per ${UNIT_WORDS[rule.unit]}${rule.inputField ? ` of ${rule.inputField}` : ''}`;
  if (rule.kind === 'per_unit' && rule.minimum) s += `, at least ${n(rule.minimum)}`;
  for (const m of rule.multipliers ?? []) {
    const parts = Object.entries(m.basisPoints).filter(([, bp]) => bp !== 10_000).map(([v, bp]) => `×${bp / 10_000} when ${m.field} is ${v}`);
    if (parts.length) s += ` (${parts.join(', ')})`;
  }
  return s;
}
