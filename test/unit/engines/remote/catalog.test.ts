import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { models } from '../../../../src/catalog/models/remote.js';
import { hostedCatalogData, hostedModels } from '../../../../src/catalog/hosted/load.js';
import type { ModelDef, ModeDef } from '../../../../src/catalog/types.js';
import { createComfyUIEngine } from '../../../../src/engines/remote/comfyui.js';
import { createOpenAIEngine } from '../../../../src/engines/remote/openai.js';
import { REMOTE_ENGINE_IDS } from '../../../../src/engines/remote/index.js';
import type { FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startComfyFake } from '../../../helpers/providers/comfyui.js';
import { startOpenAIFake } from '../../../helpers/providers/openai.js';

const live = models.filter((m) => !m.deprecated);
const allModes = models.flatMap((m) => m.modes.map((mode) => ({ m, mode })));
const find = (nodeType: string) => models.find((m) => m.nodeType === nodeType)!;

/** The input a mode's defaults give, as the run service would fill them. */
const defaults = (mode: ModeDef, extra: Record<string, unknown> = {}) => ({
  ...Object.fromEntries(mode.fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default])),
  ...extra,
});

test('about 27 live models of our own, the ones named in the brief among them, plus deprecated ones; models the hosted catalog lists come from it', () => {
  assert.ok(live.length >= 25 && live.length <= 32, `${live.length} live models`);
  for (const n of ['flux_2_pro', 'flux_2_dev', 'seedream_4', 'ideogram_v3', 'recraft_v3', 'imagen_4',
    'veo_3_1', 'sora_2', 'hailuo_02', 'wan_2_5', 'runway_gen4', 'sync_lipsync_2', 'latentsync',
    'elevenlabs_tts', 'minimax_speech', 'whisper_large_v3', 'elevenlabs_sound_effects', 'stable_audio', 'lyria_2',
    'elevenlabs_voice_changer', 'audio_translate', 'gpt_5_4', 'gemini_3_1_pro', 'llama_4_maverick', 'qwen_3']) {
    assert.ok(find(n) && !find(n).deprecated, n);
  }
  // The hosted interface wins where the hosted service has the model (issue 25): not defined here any more.
  const hostedIds = ['flux_2_max', 'nano_banana_pro', 'gpt_image_2', 'kling_v3_pro', 'seedance_2_0', 'openai_tts', 'claude_sonnet_4_6', 'deepseek_v3_2'];
  for (const n of hostedIds) assert.equal(find(n), undefined, `${n} comes from the hosted catalog`);
  const hosted = hostedModels(hostedCatalogData());
  const h = (n: string) => hosted.find((m) => m.nodeType === n)!;
  assert.deepEqual(h('flux_2_max').modes.map((m) => [m.subModelId, m.category]), [['flux-2-max-text', 'text-to-image'], ['flux-2-max-edit', 'image-to-image']]);
  assert.deepEqual(h('kling_v3_pro').modes.map((m) => m.category), ['text-to-video', 'image-to-video']);
  assert.equal(find('gemini_3_1_pro').modes[0]!.category, 'multimodal-llm');
  const deprecated = models.filter((m) => m.deprecated);
  assert.ok(deprecated.length >= 3);
  for (const d of deprecated) {
    const r = find(d.deprecated!.replacement) ?? hostedModels(hostedCatalogData()).find((m) => m.nodeType === d.deprecated!.replacement);
    assert.ok(r && !r.deprecated, `${d.nodeType} → ${d.deprecated!.replacement}`);
    assert.ok(!Number.isNaN(Date.parse(d.deprecated!.at)));
  }
});

test('names and ids follow the conventions and are unique', () => {
  assert.equal(new Set(models.map((m) => m.nodeType)).size, models.length);
  assert.equal(new Set(allModes.map(({ mode }) => mode.subModelId)).size, allModes.length);
  for (const { m, mode } of allModes) {
    assert.match(m.nodeType, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    assert.match(mode.subModelId, /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
    const names = mode.fields.map((f) => f.name);
    assert.equal(new Set(names).size, names.length, `${mode.subModelId} field names unique`);
    for (const f of mode.fields) {
      assert.match(f.name, /^[a-z][a-z0-9_]*$/);
      assert.ok(f.description.length > 3, `${mode.subModelId}.${f.name} described`);
      if (f.type === 'select') assert.ok(f.options?.length && f.options.includes(f.default as string), `${mode.subModelId}.${f.name} default is an option`);
      assert.ok(!/^(image|images|imageUrl|audio|video)$/.test(f.name), `${mode.subModelId}.${f.name} uses the *_url convention`);
    }
  }
});

test('each model says where it runs and is bound to that adapter with a provider model id', () => {
  const envVar = { fal: 'FAL_KEY', replicate: 'REPLICATE_API_TOKEN', openai: 'OPENAI_API_KEY', comfyui: 'COMFYUI_URL' } as Record<string, string>;
  for (const { m, mode } of allModes) {
    assert.ok((REMOTE_ENGINE_IDS as readonly string[]).includes(mode.engine.engine), `${mode.subModelId} engine`);
    assert.equal(m.provider, mode.engine.engine, `${m.nodeType} provider`);
    assert.ok(m.description.includes(envVar[m.provider]!), `${m.nodeType} description names ${envVar[m.provider]}`);
    const o = mode.engine.options ?? {};
    if (mode.engine.engine === 'comfyui') assert.equal(typeof o.workflow, 'object');
    else assert.equal(typeof o.model, 'string', `${mode.subModelId} model id`);
    if (mode.engine.engine === 'openai') assert.ok(['chat', 'image', 'image-edit', 'speech', 'transcription'].includes(String(o.operation)));
    assert.ok(m.icon && /^#[0-9a-f]{6}$/.test(m.accent));
    // a field the binding would drop would be a lie in the schema
    const dropped = Object.entries((o.inputMap ?? {}) as Record<string, unknown>).filter(([, v]) => v === null).map(([k]) => k);
    for (const d of dropped) assert.ok(!mode.fields.some((f) => f.name === d), `${mode.subModelId} shows ${d} but never sends it`);
  }
});

test('outputs: media lists under result, text under output', () => {
  for (const { m, mode } of allModes) {
    const textual = ['text-generation', 'multimodal-llm', 'transcription'].includes(mode.category);
    assert.deepEqual(mode.outputs.map((o) => o.name), [textual ? 'output' : 'result'], mode.subModelId);
    if (!textual) assert.equal(mode.outputs[0]!.dataType, m.category === 'image' ? 'image' : mode.category === 'lipsync' || m.category === 'video' ? 'video' : 'audio');
  }
});

test('pricing rules read real fields, cover every multiplier option, and have realistic magnitudes', () => {
  for (const { m, mode } of allModes) {
    const rule = mode.pricing;
    const byName = new Map(mode.fields.map((f) => [f.name, f]));
    for (const mul of rule.multipliers ?? []) {
      const field = byName.get(mul.field);
      assert.ok(field?.type === 'select', `${mode.subModelId}: multiplier field ${mul.field} is a select`);
      for (const opt of field!.options!) assert.ok(String(opt) in mul.basisPoints, `${mode.subModelId}: ${mul.field}=${opt} priced`);
    }
    if (rule.kind === 'hosted') continue;
    if (rule.kind === 'flat') {
      assert.ok(rule.microcredits > 0);
      continue;
    }
    if (rule.inputField && rule.unit !== 'image') assert.ok(byName.has(rule.inputField), `${mode.subModelId}: pricing field ${rule.inputField}`);
    const per = rule.microcreditsPerUnit;
    if (m.deprecated) continue;
    if (rule.unit === 'image' && mode.engine.engine !== 'comfyui') assert.ok(per >= 30_000 && per <= 80_000, `${mode.subModelId}: ${per} per image`);
    if (rule.unit === 'second' && m.category === 'video') assert.ok(per >= 50_000 && per <= 150_000, `${mode.subModelId}: ${per} per video second`);
    if (rule.unit === '1k_tokens') assert.ok(per >= 2_000 && per <= 20_000, `${mode.subModelId}: ${per} per 1k tokens`);
    if (rule.unit === '1k_chars') assert.ok(per >= 10_000 && per <= 200_000, `${mode.subModelId}: ${per} per 1k chars`);
    if (rule.unit === 'image') assert.ok(byName.has('num_images') || !rule.inputField || rule.defaultQuantity === 1);
  }
  // the units the brief asks for are all used
  const units = new Set<string>(allModes.map(({ mode }) => (mode.pricing.kind === 'per_unit' ? mode.pricing.unit : 'flat')));
  for (const u of ['image', 'second', '1k_chars', '1k_tokens', 'flat']) assert.ok(units.has(u), u);
});

test('LLMs take prompt, system, max_tokens and temperature (GPT-5.4 no temperature: it takes only its own)', () => {
  for (const m of live.filter((x: ModelDef) => x.category === 'llm')) {
    const names = m.modes[0]!.fields.map((f) => f.name);
    for (const n of ['prompt', 'system', 'max_tokens', ...(m.nodeType === 'gpt_5_4' ? [] : ['temperature'])]) assert.ok(names.includes(n), `${m.nodeType}.${n}`);
    assert.equal(names.includes('temperature'), m.nodeType !== 'gpt_5_4', m.nodeType);
  }
});

test('end to end: the SDXL ComfyUI binding runs against a ComfyUI fake with its defaults', async () => {
  const fake = await startComfyFake();
  after(() => fake.close());
  const mode = find('sdxl_comfyui').modes[0]!;
  const t = testContext();
  after(t.cleanup);
  const engine = createComfyUIEngine({ baseUrl: fake.url, pollIntervalMs: 5, maxPollIntervalMs: 10 });
  const out = await engine.execute({ nodeType: 'sdxl_comfyui', subModelId: mode.subModelId, input: defaults(mode, { prompt: 'a castle', num_images: 2 }), options: mode.engine.options! }, t.ctx);
  assert.equal((out.result as FileOutput[]).length, 2);
  const graph = fake.callsTo('POST', /^\/prompt$/)[0]!.json().prompt;
  assert.equal(graph['5'].inputs.width, 1024);
  assert.equal(graph['7'].inputs.text, '');
});

test('end to end: the GPT-5.4 binding streams from an OpenAI fake with max_completion_tokens', async () => {
  const fake = await startOpenAIFake({ models: ['gpt-5.4'] });
  after(() => fake.close());
  const mode = find('gpt_5_4').modes[0]!;
  const t = testContext();
  after(t.cleanup);
  const out = await createOpenAIEngine({ baseUrl: `${fake.url}/v1` }).execute({ nodeType: 'gpt_5_4', subModelId: mode.subModelId, input: defaults(mode, { prompt: 'hi', system: 'be kind' }), options: mode.engine.options! }, t.ctx);
  assert.equal((out.output as { text: string }).text, 'Hello from the fake model.');
  assert.equal(fake.lastChat.max_completion_tokens, 1024);
  assert.equal('temperature' in fake.lastChat, false);
});
