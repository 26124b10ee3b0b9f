import type { HostedPricingRule } from './types.js';

/**
 * Hosted cost rules (the `cost` of each model in src/catalog/hosted/catalog.json) evaluated exactly, in
 * microcredits. Pure; called only by the one pricing function in pricing/price.ts.
 *
 * Units follow the hosted catalog: amounts named `credits…` (`credits`, `creditsPerChar`, `creditsPerSecond`,
 * `creditsPerMinute`, `minimumCredits`) are already microcredits; every other amount (`value`, `amount`,
 * `cost`, tier prices, `perSecond`, `base`, add-ons, per-megapixel costs) is in credits of 1,000,000
 * microcredits — crop_image's `per_image 0.005` is 5,000 microcredits an image.
 */
export class HostedPricingError extends Error {
  override name = 'PricingError';
}

export interface Rational {
  num: bigint;
  den: bigint;
}

const MICRO = 1_000_000n;
const r = (n: number | bigint): Rational => ({ num: BigInt(n), den: 1n });
const mul = (a: Rational, b: Rational): Rational => ({ num: a.num * b.num, den: a.den * b.den });
const add = (a: Rational, b: Rational): Rational => ({ num: a.num * b.den + b.num * a.den, den: a.den * b.den });
const cmp = (a: Rational, b: Rational): number => { const d = a.num * b.den - b.num * a.den; return d > 0n ? 1 : d < 0n ? -1 : 0; };
const max = (a: Rational, b: Rational) => (cmp(a, b) >= 0 ? a : b);
const min = (a: Rational, b: Rational) => (cmp(a, b) <= 0 ? a : b);
const ceilR = (a: Rational): Rational => r((a.num + a.den - 1n) / a.den);

/**
 * A decimal number as an exact rational, to 15 significant digits: the hosted rules carry binary-float
 * noise (0.013000000000000001, 0.006666666666666667), which 15 digits keep out.
 */
export function decimal(v: unknown, what: string): Rational {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new HostedPricingError(`${what} must be a non-negative number`);
  if (n === 0) return r(0);
  const [mant, expPart] = n.toPrecision(15).split('e');
  const exp = Number(expPart ?? 0);
  const [ip, fp = ''] = mant!.split('.');
  let num = BigInt(ip! + fp);
  let den = 10n ** BigInt(fp.length);
  if (exp > 0) num *= 10n ** BigInt(exp);
  else if (exp < 0) den *= 10n ** BigInt(-exp);
  return { num, den };
}

const credits = (v: unknown, what: string) => mul(decimal(v, what), r(MICRO));
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const numeric = (v: unknown): number | undefined => (isNum(v) ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function chars(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + chars(x), 0);
  return 0;
}

/** How many outputs a run makes (`num_images`, else `n`, else 1). */
function outputs(input: Record<string, unknown>): Rational {
  const n = numeric(input.num_images) ?? numeric(input.n) ?? 1;
  return decimal(n, 'image count');
}

/** Seconds a per-second price applies to: the duration input, else what the media will tell (assumed), within the rule's bounds. */
function seconds(rule: HostedPricingRule, input: Record<string, unknown>): Rational {
  const c = rule.cost;
  const fromInput = c.durationFrom === undefined ? numeric(input[typeof c.durationField === 'string' && c.durationField in input ? c.durationField : 'duration']) : undefined;
  let s: number | undefined = fromInput;
  if (s === undefined) {
    // A length the input does not give ("auto", or a media file's): the most billable for "auto", else the hosted
    // fallback, else our assumption (catalog/hosted/assumptions.ts), else the least billable.
    const auto = input.duration === 'auto' && isNum(c.maxBillableSeconds) ? c.maxBillableSeconds : undefined;
    s = auto ?? (isNum(c.fallbackDurationSeconds) ? c.fallbackDurationSeconds : undefined) ?? rule.assume?.seconds
      ?? (isNum(c.minBillableSeconds) ? c.minBillableSeconds : undefined);
  }
  if (s === undefined) throw new HostedPricingError('the rule needs a duration and none is known');
  let q = decimal(s, 'duration');
  if (c.durationRounding === 'ceil') q = ceilR(q);
  if (isNum(c.minBillableSeconds)) q = max(q, decimal(c.minBillableSeconds, 'minBillableSeconds'));
  if (isNum(c.maxBillableSeconds)) q = min(q, decimal(c.maxBillableSeconds, 'maxBillableSeconds'));
  return q;
}

/** The tier a tiered rule picks from the input (several parts joined as the tier names are). */
function tierOf(rule: HostedPricingRule, input: Record<string, unknown>): unknown {
  const c = rule.cost;
  const tiers = obj(c.tiers);
  const from = Array.isArray(c.tierKeyFrom) ? (c.tierKeyFrom as string[]) : [String(c.tierKeyFrom)];
  const keyMap = obj(c.tierKeyMap);
  const parts = from.map((field) => {
    let v = input[field] ?? rule.assume?.tierParts?.[field];
    if (Array.isArray(v)) v = v.length > 0; // "has reference videos"
    else if (v === undefined && /_urls$/.test(field)) v = false; // an absent list has none
    let s = String(v);
    const perField = obj(keyMap[field]);
    if (typeof perField[s] === 'string') s = perField[s] as string;
    return s;
  });
  const sep = Object.keys(tiers).some((k) => k.includes(':')) ? ':' : '_';
  let key = parts.join(sep);
  if (typeof keyMap[key] === 'string') key = keyMap[key] as string;
  if (key in tiers) return tiers[key];
  if (typeof c.defaultTier === 'string' && c.defaultTier in tiers) return tiers[c.defaultTier];
  throw new HostedPricingError(`no price tier "${key}" (${from.join(', ')})`);
}

function megapixels(rule: HostedPricingRule, input: Record<string, unknown>): Rational {
  const c = rule.cost;
  const profile = obj(c.resolutionProfile);
  const size = typeof c.sizeFrom === 'string' ? input[c.sizeFrom] : undefined;
  const dims = typeof size === 'string' ? obj(profile[size]) : {};
  const w = numeric(dims.width) ?? (size === 'Custom' ? numeric(input.width) : undefined);
  const h = numeric(dims.height) ?? (size === 'Custom' ? numeric(input.height) : undefined);
  if (w !== undefined && h !== undefined) return { num: BigInt(Math.round(w)) * BigInt(Math.round(h)), den: 1_000_000n };
  return decimal(numeric(c.defaultMp) ?? 1, 'defaultMp');
}

function perMegapixel(rule: HostedPricingRule, input: Record<string, unknown>): Rational {
  const c = rule.cost;
  if (c.costPerBlock !== undefined) {
    // Billed in blocks of output megapixels; the output's size is known after the run, so the default size times the upscale factor².
    const byModel = obj(c.billingBlockMpByModel);
    const modelField = typeof c.billingModelFrom === 'string' ? c.billingModelFrom : 'model';
    const block = numeric(byModel[String(input[modelField])]) ?? numeric(c.billingBlockMp) ?? 1;
    const factor = numeric(input.upscale_factor) ?? 1;
    const mp = mul(decimal(numeric(c.defaultMp) ?? 1, 'defaultMp'), decimal(factor * factor, 'upscale factor'));
    const blocks = ceilR(mul(mp, { num: 1n, den: BigInt(block) }));
    return mul(blocks, credits(c.costPerBlock, 'costPerBlock'));
  }
  const mp = ceilR(megapixels(rule, input));
  let each: Rational;
  if (c.firstMpCost !== undefined) {
    each = add(credits(c.firstMpCost, 'firstMpCost'), mul(credits(c.additionalMpCost ?? 0, 'additionalMpCost'), max(r(0), add(mp, r(-1)))));
  } else {
    each = mul(credits(c.costPerMp, 'costPerMp'), mp);
  }
  return mul(each, outputs(input));
}

function base(rule: HostedPricingRule, input: Record<string, unknown>): Rational {
  const c = rule.cost;
  const a = rule.assume ?? {};
  switch (rule.unit) {
    case 'fixed':
      return c.credits !== undefined ? decimal(c.credits, 'credits') : credits(c.value ?? c.amount ?? c.cost, 'fixed amount');
    case 'per_image':
      return mul(credits(c.value ?? c.amount ?? c.cost, 'per-image amount'), outputs(input));
    case 'per_second': {
      const rate = c.creditsPerSecond !== undefined ? decimal(c.creditsPerSecond, 'creditsPerSecond') : credits(c.cost ?? c.value, 'per-second amount');
      return mul(rate, seconds(rule, input));
    }
    case 'per_minute': {
      const byInput = obj(c.fixedCreditsByInput);
      const fixed = obj(byInput.values)[String(input[String(byInput.field)])];
      if (fixed !== undefined) return decimal(fixed, 'fixedCreditsByInput');
      const baseBy = obj(c.baseCreditsByInput);
      const extra = obj(baseBy.values)[String(input[String(baseBy.field)])];
      let rate: Rational;
      if (c.creditsPerMinute !== undefined) rate = decimal(c.creditsPerMinute, 'creditsPerMinute');
      else if (c.baseValue !== undefined) {
        // merge_videos: a base price plus one for each video after the first.
        const n = Array.isArray(input.video_urls) ? input.video_urls.length : 2;
        rate = add(credits(c.baseValue, 'baseValue'), mul(credits(c.extraPerVideo ?? 0, 'extraPerVideo'), r(Math.max(1, n - 1))));
      } else rate = credits(c.value ?? c.cost, 'per-minute amount');
      const total = mul(rate, decimal(a.minutes ?? 1, 'minutes'));
      return extra !== undefined ? add(total, decimal(extra, 'baseCreditsByInput')) : total;
    }
    case 'per_character': {
      let n = chars(input.text ?? input.prompt);
      if (n === 0) n = a.characters ?? 0;
      const block = numeric(c.characterBlockSize);
      if (block && block > 0) n = Math.ceil(n / block) * block;
      const total = mul(decimal(c.creditsPerChar, 'creditsPerChar'), r(n));
      return c.minimumCredits !== undefined ? max(total, decimal(c.minimumCredits, 'minimumCredits')) : total;
    }
    case 'per_megapixel':
      return perMegapixel(rule, input);
    case 'per_token': {
      // Charged on the run's input (the answer's tokens are not known when the run is held and charged):
      // prompt and system prompt at 4 characters a token, plus max_tokens when the caller caps the answer.
      const promptTokens = Math.ceil((chars(input.prompt) + chars(input.system_prompt)) / 4);
      const units = Math.max(a.minTokens ?? 0, promptTokens + Math.ceil(numeric(input.max_tokens) ?? 0));
      return mul(r(units), mul(credits(c.baseUsdPer1000Units, 'baseUsdPer1000Units'), { num: 1n, den: 1000n }));
    }
    case 'tiered': {
      const tier = tierOf(rule, input);
      let total: Rational;
      if (typeof tier === 'number') total = mul(credits(tier, 'tier price'), outputs(input));
      else {
        const t = obj(tier);
        total = mul(credits(t.perSecond ?? 0, 'perSecond'), seconds(rule, input));
        if (t.base !== undefined) total = add(total, credits(t.base, 'tier base'));
      }
      for (const [field, amount] of Object.entries(obj(c.addons))) if (input[field] === true) total = add(total, credits(amount, `${field} add-on`));
      for (const ca of Array.isArray(c.conditionalAddons) ? c.conditionalAddons : []) {
        const x = obj(ca);
        if (input[String(x.field)] === x.value) total = add(total, credits(x.amount, `${String(x.field)} add-on`));
      }
      return total;
    }
  }
}

/** A hosted rule's price in microcredits (exact rational, before rounding). */
export function hostedPrice(rule: HostedPricingRule, input: Record<string, unknown>): Rational {
  let total = base(rule, input);
  const fee = rule.assume?.inputImageFee;
  if (fee) {
    const count = fee.fields.reduce((n, f) => n + (Array.isArray(input[f]) ? (input[f] as unknown[]).length : typeof input[f] === 'string' && input[f] ? 1 : 0), 0);
    total = add(total, mul(credits(fee.credits, 'input image fee'), r(Math.max(fee.min ?? 0, count))));
  }
  const m = rule.cost.platformChargeMultiplier ?? rule.assume?.platformMultiplier;
  if (m !== undefined) total = mul(total, decimal(m, 'platform multiplier'));
  return total;
}

/** The input fields a hosted rule reads. */
export function hostedPricingFields(rule: HostedPricingRule): string[] {
  const c = rule.cost;
  const f = new Set<string>();
  const from = Array.isArray(c.tierKeyFrom) ? (c.tierKeyFrom as string[]) : typeof c.tierKeyFrom === 'string' ? [c.tierKeyFrom] : [];
  for (const x of from) f.add(x);
  for (const k of Object.keys(obj(c.addons))) f.add(k);
  for (const ca of Array.isArray(c.conditionalAddons) ? c.conditionalAddons : []) f.add(String(obj(ca).field));
  if (typeof c.sizeFrom === 'string') f.add(c.sizeFrom);
  if (typeof c.durationFrom === 'string') f.add(c.durationFrom);
  for (const x of rule.assume?.inputImageFee?.fields ?? []) f.add(x);
  switch (rule.unit) {
    case 'per_token': for (const x of ['prompt', 'system_prompt', 'max_tokens']) f.add(x); break;
    case 'per_character': f.add('text'); f.add('prompt'); break;
    case 'per_image': f.add('num_images'); break;
    case 'per_minute': if (c.baseValue !== undefined) f.add('video_urls'); if (obj(c.fixedCreditsByInput).field) f.add(String(obj(c.fixedCreditsByInput).field)); break;
    case 'per_megapixel': if (c.costPerBlock !== undefined) { f.add(String(c.billingModelFrom ?? 'model')); f.add('upscale_factor'); } else { f.add('num_images'); f.add('width'); f.add('height'); } break;
    case 'per_second': if (c.durationFrom === undefined) f.add('duration'); break;
    case 'tiered': if (c.durationFrom === undefined) f.add('duration'); f.add('num_images'); f.add('n'); break;
  }
  return [...f];
}
