import assert from 'node:assert/strict';
import { test } from 'node:test';
import { models } from '../../src/catalog/models/utilities.js';
import { defaultsOf } from '../../src/catalog/schema.js';
import { allEngines } from '../../src/engines/all.js';
import { loadConfig } from '../../src/config.js';
import { priceMicrocredits } from '../../src/pricing/price.js';

/**
 * The hosted utilities' interface as facts of the hosted catalog (hosted-catalog.json of issue 25):
 * field names, required set, defaults, ranges, options, output keys and default estimates.
 */
const HOSTED: Record<string, {
  providerType: string;
  estimate: number;
  required: string[];
  fields: Record<string, { default?: unknown; min?: number; max?: number; step?: number; options?: string[]; minItems?: number; maxItems?: number; label: string }>;
  outputs: string[];
}> = {
  crop_image: {
    providerType: 'internal', estimate: 5000, required: ['image_url'], outputs: ['image_url'],
    fields: {
      image_url: { label: 'Input Image' },
      x_percent: { default: 0, min: 0, max: 100, step: 1, label: 'X Position (%)' },
      y_percent: { default: 0, min: 0, max: 100, step: 1, label: 'Y Position (%)' },
      width_percent: { default: 100, min: 0, max: 100, step: 0.001, label: 'Width (%)' },
      height_percent: { default: 100, min: 0, max: 100, step: 0.001, label: 'Height (%)' },
      width_px: { min: 1, step: 1, label: 'Width (px)' },
      height_px: { min: 1, step: 1, label: 'Height (px)' },
      x_px: { min: 0, step: 1, label: 'X Position (px)' },
      y_px: { min: 0, step: 1, label: 'Y Position (px)' },
    },
  },
  merge_videos: {
    providerType: 'internal', estimate: 50_000, required: ['video_urls'], outputs: ['video_url'],
    fields: {
      video_urls: { minItems: 2, maxItems: 100, label: 'Videos' },
      transition: { default: 'none', options: ['none', 'fade', 'dissolve'], label: 'Transition' },
    },
  },
  extract_audio: {
    providerType: 'internal', estimate: 20_000, required: ['video_url'], outputs: ['audio_url'],
    fields: { video_url: { label: 'Video' }, format: { default: 'mp3', options: ['mp3', 'wav', 'aac'], label: 'Format' } },
  },
  merge_audio_video: {
    providerType: 'internal', estimate: 30_000, required: ['video_url', 'audio_url'], outputs: ['video_url'],
    fields: { video_url: { label: 'Video' }, audio_url: { label: 'Audio' }, audio_volume: { default: 1, min: 0, max: 2, step: 0.1, label: 'Audio Volume' } },
  },
  document_ocr: {
    // Hosted on Mistral; run here by Tesseract (docs/api.md, "Hosted utilities").
    providerType: 'internal', estimate: 650, required: ['file_url'], outputs: ['text', 'content_url'],
    fields: { file_url: { label: 'Document or Image' } },
  },
};

test('the hosted utilities have the hosted ids, fields, ranges, defaults, options, output keys and default estimates', () => {
  assert.deepEqual(models.map((m) => m.nodeType).sort(), Object.keys(HOSTED).sort());
  for (const m of models) {
    const want = HOSTED[m.nodeType]!;
    assert.equal(m.defaultSubModelId, m.nodeType);
    assert.equal(m.providerType, want.providerType);
    assert.equal(m.category, 'utility');
    assert.ok(m.cost, `${m.nodeType} shows the hosted cost rule`);
    assert.equal(m.modes.length, 1);
    const mode = m.modes[0]!;
    assert.equal(mode.subModelId, m.nodeType);
    assert.equal(mode.defaultEstimateMicrocredits, want.estimate);
    assert.equal(priceMicrocredits(mode.pricing, defaultsOf(mode)), want.estimate, `${m.nodeType}: the default input costs the hosted default estimate`);
    assert.deepEqual(mode.fields.filter((f) => f.required).map((f) => f.name).sort(), [...want.required].sort());
    assert.deepEqual(mode.outputs.map((o) => o.name), want.outputs);
    for (const [name, facts] of Object.entries(want.fields)) {
      const field = mode.fields.find((f) => f.name === name);
      assert.ok(field, `${m.nodeType}.${name}`);
      assert.equal(field.label, facts.label, `${m.nodeType}.${name} label`);
      for (const k of ['default', 'min', 'max', 'step', 'options', 'minItems', 'maxItems'] as const) {
        if (facts[k] !== undefined) assert.deepEqual(field[k], facts[k], `${m.nodeType}.${name}.${k}`);
      }
    }
    for (const o of mode.outputs) if (o.dataType !== 'text' && o.name !== 'content_url') assert.equal(o.wireType, 'string[]', 'media outputs are lists');
  }
});

test('every hosted utility is bound to an engine of this build, available here', async () => {
  const engines = new Map(allEngines(loadConfig({ DATABASE_URL: 'postgres://unused/unused' }), {}).map((e) => [e.id, e]));
  for (const m of models) {
    const engine = engines.get(m.modes[0]!.engine.engine);
    assert.ok(engine, `${m.nodeType}: engine ${m.modes[0]!.engine.engine}`);
    assert.deepEqual(await engine.availability(), { available: true }, m.nodeType);
  }
});
