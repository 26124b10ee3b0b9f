import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { hostedCatalogData, hostedModels } from '../../../../src/catalog/hosted/load.js';
import { hostedBindings } from '../../../../src/catalog/hosted/bindings/index.js';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { EngineRegistry } from '../../../../src/engines/registry.js';
import { createNoAdapterEngine } from '../../../../src/engines/noAdapter.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { mapInput, mappingFrom } from '../../../../src/engines/remote/inputs.js';
import type { FileOutput } from '../../../../src/engines/types.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startOpenAIFake } from '../../../helpers/providers/openai.js';
import { makePng } from '../../../helpers/providers/media.js';

const models = hostedModels(hostedCatalogData());
const modeOf = (subModelId: string) => models.flatMap((m) => m.modes).find((x) => x.subModelId === subModelId)!;

test('every hosted sub-model with an adapter here has a binding to it; the rest name their provider', () => {
  const withAdapter: Record<string, string> = {
    fal: 'fal', openai: 'openai', replicate: 'replicate', openrouter: 'openrouter',
    elevenlabs: 'elevenlabs', deepgram: 'deepgram', xai: 'xai', wavespeed: 'wavespeed', hedra: 'hedra',
  };
  // Google's Gemini Omni Flash video models have no adapter (only its Interactions API serves them).
  const unbound = new Set(['gemini-omni-flash-text-to-video', 'gemini-omni-flash-image-to-video', 'gemini-omni-flash-reference-to-video', 'gemini-omni-flash-edit-video']);
  for (const m of models) {
    for (const mode of m.modes) {
      const want = m.providerType === 'google' ? (unbound.has(mode.subModelId) ? undefined : 'google') : withAdapter[m.providerType!];
      if (want) assert.equal(mode.engine.engine, want, `${mode.subModelId} runs on ${want}`);
      else assert.deepEqual(mode.engine, { engine: 'no-adapter', options: { provider: m.providerType } }, `${mode.subModelId} names its provider`);
      if (want === 'fal' || want === 'replicate' || want === 'openrouter') assert.equal(typeof mode.engine.options?.model, 'string');
    }
  }
  for (const id of Object.keys(hostedBindings)) assert.ok(models.some((m) => m.modes.some((x) => x.subModelId === id)), `binding ${id} is a hosted sub-model`);
});

test('a provider with no adapter, or not configured, is an availability answer naming it, not a crash', async () => {
  const registry = new EngineRegistry([...remoteEnginesFromEnv({}), createNoAdapterEngine()]);
  await registry.init();
  const catalog = new Catalog(models, (id, options) => registry.availability(id, options));
  const omni = catalog.modelAvailability(catalog.model('gemini_omni_flash')!);
  assert.deepEqual(omni, { available: false, reason: 'no adapter for provider google in this build' });
  const tts = catalog.modelAvailability(catalog.model('elevenlabs_v3_tts')!);
  assert.deepEqual(tts, { available: false, reason: 'set ELEVENLABS_API_KEY to run models on ElevenLabs' });
  const llm = catalog.modelAvailability(catalog.model('gpt_5_5')!);
  assert.equal(llm.available, false);
  assert.match(llm.reason!, /OPENROUTER_API_KEY/);
  await assert.rejects(createNoAdapterEngine().execute({ nodeType: 'hedra_lipsync', subModelId: 'hedra-lipsync', input: {}, options: { provider: 'hedra' } }, testContext().ctx), /no adapter for provider hedra/);
});

test('OpenRouter: a hosted LLM runs through the OpenAI-compatible engine with its system prompt, PDFs, sampling, stop, JSON mode and reasoning', async () => {
  const mode = modeOf('gpt_5_5');
  const slug = mode.engine.options!.model as string;
  const fake = await startOpenAIFake({ apiKey: 'or-key', models: [slug] });
  after(() => fake.close());
  const engines = remoteEnginesFromEnv({ OPENROUTER_API_KEY: 'or-key', OPENROUTER_BASE_URL: `${fake.url}/v1` });
  const openrouter = engines.find((e) => e.id === 'openrouter')!;
  assert.deepEqual(await openrouter.availability(), { available: true });
  const t = testContext();
  after(t.cleanup);
  const input = {
    prompt: 'Summarise', system_prompt: 'Be brief', top_p: 0.5, top_k: 40, stop: 'END, STOP', response_format: true, reasoning: true, temperature: 0.2,
    file_urls: [dataUrl(Buffer.from('%PDF-1.4 fake'), 'application/pdf')],
  };
  const out = await openrouter.execute({ nodeType: 'gpt_5_5', subModelId: 'gpt_5_5', input, options: mode.engine.options! }, t.ctx);
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello from the fake model.' });
  const body = fake.lastChat;
  assert.equal(body.model, slug);
  assert.deepEqual(body.messages[0], { role: 'system', content: 'Be brief' });
  assert.equal(body.messages[1].content[0].text, 'Summarise');
  assert.equal(body.messages[1].content[1].type, 'file');
  assert.match(body.messages[1].content[1].file.file_data, /^data:application\/pdf;base64,/);
  assert.equal(body.top_p, 0.5);
  assert.equal(body.top_k, 40);
  assert.equal(body.temperature, 0.2);
  assert.deepEqual(body.stop, ['END', 'STOP']);
  assert.deepEqual(body.response_format, { type: 'json_object' });
  assert.deepEqual(body.reasoning, { enabled: true });
});

test('OpenAI images: the hosted option spellings reach OpenAI in its own, and uploadedImages are the images to edit', async () => {
  const fake = await startOpenAIFake({ apiKey: 'sk-test', models: ['gpt-image-2'] });
  after(() => fake.close());
  const openai = remoteEnginesFromEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1` }).find((e) => e.id === 'openai')!;
  await openai.availability();
  const t = testContext();
  after(t.cleanup);
  const mode = modeOf('gpt-image-2-edit');
  const input = { prompt: 'make it blue', uploadedImages: [dataUrl(makePng(4, 4, [1, 2, 3]), 'image/png')], size: 'Auto', quality: 'High', background: 'Transparent', n: 1, output_format: 'PNG' };
  const out = await openai.execute({ nodeType: 'gpt_image_2', subModelId: 'gpt-image-2-edit', input, options: mode.engine.options! }, t.ctx);
  assert.equal((out.result as FileOutput[])[0]!.contentType, 'image/png');
  const form = fake.lastForm!;
  assert.equal(form.get('quality'), 'high');
  assert.equal(form.get('size'), 'auto');
  assert.equal(form.get('background'), 'transparent');
  assert.equal(form.get('output_format'), 'png');
  assert.ok(form.get('image') instanceof Blob);
});

test('fal bindings: composite sizes become fal objects, hosted spellings fal values, camelCase names fal parameters', () => {
  const flux = mappingFrom(modeOf('flux-2-max-text').engine.options!);
  assert.deepEqual(mapInput({ prompt: 'p', image_size: '4:3', output_format: 'JPEG', width: 10, height: 20 }, flux), { prompt: 'p', image_size: 'landscape_4_3', output_format: 'jpeg' });
  assert.deepEqual(mapInput({ prompt: 'p', image_size: 'Custom', width: 1200, height: 800 }, flux), { prompt: 'p', image_size: { width: 1200, height: 800 } });
  const edit = mappingFrom(modeOf('flux-2-max-edit').engine.options!);
  assert.deepEqual(mapInput({ prompt: 'p', image_size: 'Auto', image_urls: ['u'] }, edit), { prompt: 'p', image_urls: ['u'] });
  const demucs = mappingFrom(modeOf('fal-demucs').engine.options!);
  assert.deepEqual(mapInput({ audioUrl: 'a', outputFormat: 'mp3', shifts: 1 }, demucs), { audio_url: 'a', output_format: 'mp3', shifts: 1 });
  const meshy = mappingFrom(modeOf('meshy-v6-preview-edit').engine.options!);
  assert.deepEqual(mapInput({ image_urls: ['one', 'two'], topology: 'quad' }, meshy), { image_url: 'one', topology: 'quad' });
  const minimax = mappingFrom(modeOf('minimax-tts').engine.options!);
  assert.deepEqual(mapInput({ prompt: 'hi', voice_id: 'Wise_Woman', speed: 1, voice_pitch: 0, format: 'mp3', sample_rate: 32000 }, minimax), {
    prompt: 'hi', voice_setting: { voice_id: 'Wise_Woman', speed: 1, pitch: 0 }, audio_setting: { format: 'mp3', sample_rate: 32000 },
  });
});
