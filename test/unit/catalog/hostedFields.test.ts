import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { f } from '../../../src/catalog/fields.js';
import { catalogField, catalogOutput, hostedCategory, hostedDataType, hostedType, schemaField } from '../../../src/catalog/hostedFields.js';
import type { FieldSpec } from '../../../src/catalog/types.js';

const noNulls = (v: unknown, where = '$'): void => {
  assert.notEqual(v, null, `${where} is null`);
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { assert.notEqual(x, undefined, `${where}.${k} is undefined`); noNulls(x, `${where}.${k}`); }
};

describe('our FieldSpec in the hosted field vocabulary (hosted-compat.md)', () => {
  const cases: Array<[string, FieldSpec, string, string]> = [
    ['a prompt', f.prompt(), 'textarea', 'string'],
    ['a short text', f.text('name', 'Name'), 'text', 'string'],
    ['a colour', f.color('bg', 'Background'), 'text', 'string'],
    ['a bounded number', f.number('duration', 'Seconds', { min: 1, max: 30 }), 'slider', 'number'],
    ['a bounded integer', f.integer('steps', 'Steps', { min: 1, max: 50 }), 'slider', 'number'],
    ['an unbounded number', f.number('scale', 'Scale', { min: 0 }), 'number', 'number'],
    ['a boolean', f.boolean('loop', 'Loop'), 'toggle', 'boolean'],
    ['a select of strings', f.select('size', 'Size', ['1K', '2K']), 'select', 'string'],
    ['a select of numbers', f.select('num_images', 'How many', [1, 2, 4]), 'select', 'number'],
    ['a multi-select', { ...f.select('tags', 'Tags', ['a', 'b']), type: 'multiselect' }, 'multi-select', 'string[]'],
    ['one image', f.image(), 'image', 'string'],
    ['a list of images', f.images({ maxItems: 14 }), 'image', 'string[]'],
    ['one video', f.video(), 'video', 'string'],
    ['a list of videos', f.videos(), 'video', 'string[]'],
    ['one audio', f.audio(), 'audio', 'string'],
    ['a json list of audio URLs', { ...f.json('audio_urls', 'Audio', { schema: { type: 'array', items: { type: 'string' } } }), dataType: 'audio' }, 'audio', 'string[]'],
    ['a json list of numbers', f.json('volumes', 'Volumes', { schema: { type: 'array', items: { type: 'number' } } }), 'array_of_text', 'number[]'],
    ['a json list of objects', f.json('speakers', 'Speakers', { schema: { type: 'array', items: { type: 'object' } } }), 'array_of_objects', 'object[]'],
    ['a json object', f.json('variables', 'Variables'), 'json', 'object'],
  ];
  for (const [what, field, type, dataType] of cases) {
    test(`${what} → type ${type}, dataType ${dataType}`, () => {
      assert.equal(hostedType(field), type);
      assert.equal(hostedDataType(field), dataType);
    });
  }

  test('the hosted overrides win: uiType and wireType', () => {
    const seed = f.seed({ uiType: 'number' });
    assert.equal(hostedType(seed), 'number');
    assert.equal(hostedType(f.seed()), 'slider');
    const size = { ...f.select('image_size', 'Size', ['Custom', '1:1']), uiType: 'composite-select', wireType: 'string' as const, extra: { customValue: 'Custom', customFields: [{ zodExpectedName: 'width' }] } };
    assert.equal(hostedType(size), 'composite-select');
    const shown = schemaField(size) as Record<string, unknown>;
    assert.equal(shown.customValue, 'Custom', 'extra facts are flattened in');
    assert.deepEqual(shown.customFields, [{ zodExpectedName: 'width' }]);
  });

  test('schema form: wire name, bare options, label, step and item limits; nothing null or undefined', () => {
    const sel = schemaField(f.select('resolution', 'Output size', ['1K', '2K', '4K'], { label: 'Resolution' }));
    assert.deepEqual(sel.options, ['1K', '2K', '4K']);
    assert.equal(sel.label, 'Resolution');
    assert.equal(sel.default, '1K');
    noNulls(sel);
    const imgs = schemaField(f.images({ maxItems: 14 }));
    assert.equal(imgs.maxItems, 14);
    assert.equal(imgs.maxImages, 14, 'an image list names its limit as maxImages too');
    assert.equal(imgs.multiple, true);
    noNulls(imgs);
    const text = schemaField(f.text('title', 'Title'));
    for (const absent of ['options', 'min', 'max', 'maxLength', 'default', 'showWhen', 'placeholder', 'step']) assert.ok(!(absent in text), `${absent} absent`);
    assert.equal(text.label, 'title', 'the label falls back to the name');
    const steps = schemaField(f.integer('steps', 'Steps', { min: 1, max: 50 }));
    assert.equal(steps.step, 1, 'a bounded integer slides by 1');
    assert.equal(schemaField(f.number('cfg', 'Guidance', { min: 0, max: 20, step: 0.5 })).step, 0.5);
    assert.equal(steps.widget, 'integer');
    assert.equal(steps.portType, 'number');
  });

  test('catalog form: zodExpectedName, options as { value, label }, outputs as lists of URLs', () => {
    const sel = catalogField(f.select('format', 'Format', ['mp3', 'wav']));
    assert.equal(sel.zodExpectedName, 'format');
    assert.deepEqual(sel.options, [{ value: 'mp3', label: 'mp3' }, { value: 'wav', label: 'wav' }]);
    assert.ok(!('name' in sel));
    noNulls(sel);
    assert.deepEqual(catalogOutput({ name: 'result', dataType: 'image' }), { zodExpectedName: 'result', type: 'image', dataType: 'string[]', label: 'result' });
    assert.deepEqual(catalogOutput({ name: 'output', dataType: 'text' }), { zodExpectedName: 'output', type: 'textarea', dataType: 'string', label: 'output' });
    assert.deepEqual(catalogOutput({ name: 'image_url', dataType: 'image', label: 'Cropped Image' }), { zodExpectedName: 'image_url', type: 'image', dataType: 'string[]', label: 'Cropped Image' });
  });

  test('our categories in the hosted vocabulary', () => {
    assert.equal(hostedCategory('text-to-image'), 'text-to-image');
    assert.equal(hostedCategory('text-generation'), 'llm');
    assert.equal(hostedCategory('multimodal-llm'), 'llm');
    assert.equal(hostedCategory('image-utility'), 'utility');
    assert.equal(hostedCategory('lipsync'), 'lipsync');
  });
});
