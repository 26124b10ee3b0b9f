import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priceMicrocredits as price, PricingError, summarize } from '../../../src/pricing/price.js';
import { pricingFields } from '../../../src/pricing/fields.js';
import type { HostedPricingRule } from '../../../src/pricing/types.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import { hostedCatalogData, hostedModels, HOSTED_DEFINED_ELSEWHERE } from '../../../src/catalog/hosted/load.js';

const rule = (unit: HostedPricingRule['unit'], cost: Record<string, unknown>, assume?: HostedPricingRule['assume']): HostedPricingRule => ({
  kind: 'hosted', unit, cost: { type: unit, ...cost }, ...(assume ? { assume } : {}),
});

test('hosted amounts are credits (×1,000,000) unless named credits…, which are microcredits', () => {
  assert.equal(price(rule('per_image', { value: 0.005 }), {}), 5000); // crop_image
  assert.equal(price(rule('per_image', { value: 0.005 }), { num_images: 3 }), 15_000);
  assert.equal(price(rule('fixed', { amount: 0.27 }), {}), 270_000);
  assert.equal(price(rule('fixed', { credits: 10_000 }), {}), 10_000);
  assert.equal(price(rule('fixed', { value: 0.00065 }), {}), 650);
});

test('float noise in hosted amounts is not charged; real fractions round up once', () => {
  // 0.013000000000000001 credits a second for 10 s is 130,000, not 130,001.
  assert.equal(price(rule('per_second', { cost: 0.013000000000000001, durationFrom: 'video_url' }, { seconds: 10 }), {}), 130_000);
  // 0.0033333333333333335 × 60 s × 1.3 = 0.26 credits.
  const subs = rule('tiered', { tiers: { dynamic_sd: { perSecond: 0.0033333333333333335 } }, tierKeyFrom: ['preset', 'resolutionTier'], tierKeyMap: { glass_sd: 'dynamic_sd' }, durationFrom: 'video_url', minBillableSeconds: 60, platformChargeMultiplier: 1.3 }, { tierParts: { resolutionTier: 'sd' } });
  assert.equal(price(subs, { preset: 'glass' }), 260_000);
  assert.equal(price(rule('per_character', { creditsPerChar: 5.2 }), { text: 'abc' }), 16); // 15.6 rounds up
});

test('per second: the duration input, bounded; media lengths from the rule fallback, else the assumption', () => {
  const music = rule('per_second', { creditsPerSecond: 2500 });
  assert.equal(price(music, { duration: 180 }), 450_000);
  assert.equal(price(music, { duration: 3 }), 7_500);
  const upscaler = rule('tiered', { tiers: { '1080p': { perSecond: 0.04 } }, tierKeyFrom: 'target_resolution', durationFrom: 'video_url', fallbackDurationSeconds: 30, platformChargeMultiplier: 1.3 });
  assert.equal(price(upscaler, { target_resolution: '1080p', duration: 999 }), 1_560_000); // a media length, not the input's
  const min = rule('per_second', { cost: 0.1, minBillableSeconds: 5 });
  assert.equal(price(min, { duration: 2 }), 500_000);
  assert.throws(() => price(rule('per_second', { cost: 0.1, durationFrom: 'video_url' }), {}), PricingError);
});

test('tiered: keys from one or several inputs, per-field and joined key maps, per-output tiers times the count, add-ons', () => {
  const nano = rule('tiered', { tierKeyFrom: 'resolution', tiers: { '1K': 0.08, '4K': 0.16 }, defaultTier: '1K', addons: { enable_web_search: 0.015 }, conditionalAddons: [{ field: 'thinking_level', value: 'high', amount: 0.002 }] }, { platformMultiplier: 1.3 });
  assert.equal(price(nano, { resolution: '1K' }), 104_000);
  assert.equal(price(nano, { resolution: '4K', num_images: 2 }), 416_000);
  assert.equal(price(nano, { resolution: '1K', enable_web_search: true, thinking_level: 'high' }), 126_100); // (0.08 + 0.015 + 0.002) × 1.3
  const gpt = rule('tiered', { tierKeyFrom: ['quality', 'size'], tierKeyMap: { quality: { high: 'High' }, size: { Auto: '1024x1024' } }, tiers: { 'High:1024x1024': 0.21072 } }, { platformMultiplier: 1.3 });
  assert.equal(price(gpt, { quality: 'High', size: 'Auto', n: 1 }), 273_936);
  assert.equal(price(gpt, { quality: 'high', size: '1024x1024', n: 2 }), 547_872);
  const kling = rule('tiered', { tiers: { audio_off: { perSecond: 0.112 }, audio_on: { perSecond: 0.168 } }, tierKeyFrom: 'generate_audio', tierKeyMap: { true: 'audio_on', false: 'audio_off' } });
  assert.equal(price(kling, { generate_audio: true, duration: 5 }), 840_000);
  assert.equal(price(kling, { generate_audio: false, duration: 10 }), 1_120_000);
  const ref = rule('tiered', { tiers: { '720p_false': { perSecond: 0.3024 }, '720p_true': { perSecond: 0.1814, base: 2.721 } }, tierKeyFrom: ['resolution', 'reference_video_urls'] });
  assert.equal(price(ref, { resolution: '720p', duration: 5 }), 1_512_000);
  assert.equal(price(ref, { resolution: '720p', duration: 5, reference_video_urls: ['https://x/v.mp4'] }), 3_628_000);
  assert.throws(() => price(rule('tiered', { tierKeyFrom: 'resolution', tiers: { '1K': 1 } }), { resolution: '8K' }), PricingError);
});

test('per character: blocks and minimums; per minute: fixed and base prices by input; per megapixel', () => {
  const tts = rule('per_character', { creditsPerChar: 26, minimumCredits: 26_000, characterBlockSize: 1000 });
  assert.equal(price(tts, { text: 'hello' }), 26_000);
  assert.equal(price(tts, { text: 'x'.repeat(1001) }), 52_000);
  const transcription = rule('per_minute', { creditsPerMinute: 6760, fixedCreditsByInput: { field: 'inputMode', values: { youtube: 150_000 } }, baseCreditsByInput: { field: 'inputMode', values: { tiktok: 1300 } } }, { minutes: 1 });
  assert.equal(price(transcription, { inputMode: 'upload' }), 6760);
  assert.equal(price(transcription, { inputMode: 'youtube' }), 150_000);
  assert.equal(price(transcription, { inputMode: 'tiktok' }), 8060);
  const merge = rule('per_minute', { baseValue: 0.04, extraPerVideo: 0.01 }, { minutes: 1 });
  assert.equal(price(merge, { video_urls: ['a', 'b'] }), 50_000);
  assert.equal(price(merge, { video_urls: ['a', 'b', 'c', 'd'] }), 70_000);
  const flux = rule('per_megapixel', { firstMpCost: 0.07, additionalMpCost: 0.03, sizeFrom: 'image_size', resolutionProfile: { '4:3': { width: 1024, height: 768 } }, defaultMp: 1 }, { platformMultiplier: 1.3 });
  assert.equal(price(flux, { image_size: '4:3', num_images: 1 }), 91_000);
  assert.equal(price(flux, { image_size: 'Custom', width: 2048, height: 2048, num_images: 1 }), 247_000); // 4.19 MP → 5: (0.07 + 4 × 0.03) × 1.3
});

test('per token: prompt and system prompt at 4 characters a token plus max_tokens, at least the hosted base of 100 tokens', () => {
  const llm = rule('per_token', { baseUsdPer1000Units: 0.001 }, { minTokens: 100 });
  assert.equal(price(llm, {}), 100);
  assert.equal(price(llm, { prompt: 'x'.repeat(4000) }), 1000);
  assert.equal(price(llm, { prompt: 'x'.repeat(4000), system_prompt: 'y'.repeat(400), max_tokens: 500 }), 1600);
  assert.deepEqual(pricingFields(llm).sort(), ['max_tokens', 'prompt', 'system_prompt']);
  assert.match(summarize(llm), /hosted/);
});

test('the default input of every hosted sub-model prices to its defaultEstimateMicrocredits', () => {
  const models = hostedModels(hostedCatalogData());
  const catalog = new Catalog(models, () => ({ available: true }));
  let checked = 0;
  for (const m of models) {
    for (const mode of m.modes) {
      const input = catalog.validateInput(mode, {}, { path: 'input', partial: true });
      assert.equal(price(mode.pricing, input), mode.defaultEstimateMicrocredits, `${mode.subModelId}`);
      checked++;
    }
  }
  const all = hostedCatalogData().models;
  const expected = all.filter((m) => !HOSTED_DEFINED_ELSEWHERE.has(m.nodeType)).reduce((n, m) => n + m.subModels.length, 0);
  assert.equal(checked, expected);
});
