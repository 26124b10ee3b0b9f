import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Catalog, defaultMode } from '../../../../src/catalog/catalog.js';
import { hostedCatalogData, hostedModel, hostedModels, HOSTED_DEFINED_ELSEWHERE } from '../../../../src/catalog/hosted/load.js';
import { hostedField } from '../../../../src/catalog/hosted/fields.js';
import { inputSchema } from '../../../../src/catalog/schema.js';
import { AppError } from '../../../../src/errors.js';

const data = hostedCatalogData();
const catalog = new Catalog(hostedModels(data), () => ({ available: true }));
const mode = (id: string) => catalog.resolveModelId(id).mode;
const valid = (id: string, input: Record<string, unknown>) => catalog.validateInput(mode(id), input, { path: 'input' });
const refusal = (id: string, input: Record<string, unknown>) => {
  try {
    valid(id, input);
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.message;
  }
  return assert.fail(`${id} accepted ${JSON.stringify(input)}`);
};

test('the committed data holds every hosted model but prose, and the loader makes one ModelDef each (the utilities left to branch utils)', () => {
  assert.equal(data.models.length, 88);
  assert.equal(data.models.reduce((n, m) => n + m.subModels.length, 0), 107);
  const text = JSON.stringify(data);
  for (const prose of ['"helpText"', '"description"', '"placeholder"']) assert.ok(!text.includes(prose), `no ${prose}`);
  const models = hostedModels(data);
  assert.equal(models.length, 88 - HOSTED_DEFINED_ELSEWHERE.size);
  for (const m of models) assert.ok(m.description.length > 20 && !m.description.includes('undefined'), m.nodeType);
});

test('hosted ids are accepted by the catalog, and a model named without a sub-model runs its hosted default', () => {
  for (const id of ['gpt-image-2.5-flare-text', 'lyria-3.5', 'seedance-2.0-fast-reference-to-video', 'elevenlabs-v3-tts']) assert.equal(catalog.resolveModelId(id).mode.subModelId, id);
  assert.equal(defaultMode(catalog.model('nano_banana_pro')!).subModelId, 'nano-banana-pro-text');
  assert.equal(catalog.model('flux_2_max')!.parentModelId, 'flux-2-max');
  assert.equal(catalog.model('veed_talking_photo')!.parentModelId, 'veed-fabric-lipsync');
  assert.equal(catalog.model('gpt_5_5')!.parentModelId, undefined); // the same as its nodeType
});

test('validation takes what the hosted API takes: wire names, composite sizes, URL lists within limits, ranges, options', () => {
  // A hosted name is an input; an unknown one is refused as the hosted API refuses it.
  valid('gpt-image-2-edit', { prompt: 'p', uploadedImages: ['https://example.com/a.png'], quality: 'High', background: 'Transparent', output_format: 'WebP' });
  assert.match(refusal('gpt-image-2-edit', { prompt: 'p', uploadedImages: ['https://example.com/a.png'], image_urls: ['x'] }), /is not an input of this model/);
  // image_size "Custom" with its width and height; the custom fields are not filled in by default.
  const custom = valid('flux-2-max-text', { prompt: 'p', image_size: 'Custom', width: 1200, height: 800 });
  assert.equal(custom.width, 1200);
  assert.equal(valid('flux-2-max-text', { prompt: 'p' }).width, undefined);
  assert.match(refusal('flux-2-max-text', { prompt: 'p', image_size: 'Custom', width: 5000 }), /width/);
  assert.match(refusal('flux-2-max-text', { prompt: 'p', image_size: '7:5' }), /image_size/);
  // string[] media lists: arrays of URLs, within the item limit.
  valid('nano-banana-pro-edit', { prompt: 'p', image_urls: ['https://example.com/a.png'] });
  assert.match(refusal('nano-banana-pro-edit', { prompt: 'p', image_urls: 'https://example.com/a.png' }), /image_urls/);
  // slider ranges and integer types from the hosted schema.
  assert.match(refusal('gpt_5_5', { prompt: 'p', temperature: 2.5 }), /temperature/);
  assert.match(refusal('gpt_5_5', { prompt: 'p', top_k: 1.5 }), /top_k/);
  // numeric selects take the numbers listed.
  valid('minimax-tts', { prompt: 'hi', voice_id: 'Wise_Woman', sample_rate: 44100 });
  assert.match(refusal('minimax-tts', { prompt: 'hi', voice_id: 'Wise_Woman', sample_rate: 44101 }), /sample_rate/);
  // array_of_objects takes a list of objects.
  valid('gemini-pro-tts', { text: 'hi', isMultiSpeaker: true, speakers: [{ name: 'A', voiceName: 'Kore' }, { name: 'B', voiceName: 'Puck' }] });
  // Inputs the hosted schema takes beyond its form: Seedance's seed, a Custom GPT image size's width and height.
  assert.equal(valid('seedance-2.0-text-to-video', { prompt: 'p', seed: 7 }).seed, 7);
  assert.equal(valid('gpt-image-2.5-flare-text', { prompt: 'p', size: 'Custom', width: 1280, height: 720 }).width, 1280);
  assert.deepEqual(valid('gpt_5_5', { prompt: 'p', video_urls: ['https://example.com/v.mp4'] }).video_urls, ['https://example.com/v.mp4']);
  assert.match(refusal('gpt_5_5', { prompt: 'p', folder: 'x' }), /is not an input of this model/); // the service's own bookkeeping is not an input
  // required and defaults: the hosted required set, hosted defaults filled in.
  assert.match(refusal('kling-v3-pro-image-to-video', { prompt: 'p' }), /start_image_url is required/);
  assert.equal(valid('kling-v3-pro-text-to-video', { prompt: 'p' }).generate_audio, true);
});

test('field mapping keeps the hosted UI kind and wire type, and the facts we do not model in extra', () => {
  const f = hostedField({ zodExpectedName: 'audio_urls', type: 'audio', dataType: 'string[]', label: 'Audio', default: [], maxAudios: 5, maxSizeInMB: 10 });
  assert.deepEqual({ type: f.type, dataType: f.dataType, uiType: f.uiType, wireType: f.wireType, maxAudios: f.maxAudios, extra: f.extra, default: f.default }, {
    type: 'json', dataType: 'audio', uiType: 'audio', wireType: 'string[]', maxAudios: 5, extra: { maxSizeInMB: 10 }, default: undefined,
  });
  const schema = inputSchema({ subModelId: 'x', label: 'x', category: 'utility', fields: [f], outputs: [], pricing: { kind: 'flat', microcredits: 0 }, engine: { engine: 'x' } });
  assert.deepEqual((schema.properties as Record<string, Record<string, unknown>>).audio_urls!.maxItems, 5);
  const toggle = hostedField({ zodExpectedName: 'loop', type: 'toggle', dataType: 'boolean', default: false, showWhen: { field: 'mode', op: 'eq', value: 'a' } });
  assert.deepEqual([toggle.type, toggle.default, toggle.showWhen, toggle.extra], ['boolean', false, { mode: ['a'] }, { showWhen: { field: 'mode', op: 'eq', value: 'a' } }]);
  assert.throws(() => hostedModel({ ...data.models[6]!, cost: { type: 'per_galaxy' } }), /unknown cost type/);
});
