import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOperatorModels, OperatorModelsError, parseOperatorModels } from '../../../../src/catalog/operatorModels.js';
import { models as builtIn } from '../../../../src/catalog/models/remote.js';
import { createOpenAIEngine } from '../../../../src/engines/remote/openai.js';
import { createReplicateEngine } from '../../../../src/engines/remote/replicate.js';
import type { FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startOpenAIFake } from '../../../helpers/providers/openai.js';
import { startReplicateFake } from '../../../helpers/providers/replicate.js';

const EXAMPLE = path.resolve('examples/atelier.models.json');
const existingNodeTypes = builtIn.map((m) => m.nodeType);

function problemsOf(json: unknown, opts = {}): string[] {
  try {
    parseOperatorModels(json, 'atelier.models.json', { existingNodeTypes, ...opts });
  } catch (err) {
    assert.ok(err instanceof OperatorModelsError, String(err));
    return err.problems;
  }
  assert.fail('expected the file to be refused');
}

const goodModel = () => ({
  nodeType: 'my_llm',
  name: 'My LLM',
  description: 'An Ollama model',
  category: 'llm',
  modes: [{
    subModelId: 'my-llm',
    label: 'Chat',
    category: 'text-generation',
    fields: ['prompt', 'system', 'max_tokens'],
    pricing: { kind: 'per_unit', unit: '1k_tokens', microcreditsPerUnit: 500, inputField: 'prompt' },
    engine: { engine: 'openai', options: { operation: 'chat', model: 'llama3.2' } },
  }],
});

test('the example file loads: standard fields expanded, overrides applied, defaults filled', async () => {
  const models = await loadOperatorModels(EXAMPLE, { existingNodeTypes, required: true });
  assert.deepEqual(models.map((m) => m.nodeType), ['ollama_llama3_2', 'sdxl_replicate', 'flux_schnell_fal', 'sd15_img2img_comfyui']);
  const llm = models[0]!;
  assert.equal(llm.provider, 'openai');
  assert.equal(llm.icon, 'message-square');
  const maxTokens = llm.modes[0]!.fields.find((f) => f.name === 'max_tokens')!;
  assert.equal(maxTokens.max, 4096);
  assert.equal(maxTokens.default, 512);
  assert.equal(maxTokens.type, 'integer');
  assert.deepEqual(llm.modes[0]!.outputs, [{ name: 'output', dataType: 'text' }]);
  assert.deepEqual(models[1]!.modes[0]!.outputs, [{ name: 'result', dataType: 'image' }]);
  assert.equal(models[2]!.modes[0]!.fields[1]!.default, 'square_hd');
  assert.equal(models[3]!.modes[0]!.fields[0]!.description, 'What the new image should show');
});

test('a missing file is no models, unless the operator named it', async () => {
  const missing = path.join(os.tmpdir(), 'atelier-no-such-models.json');
  assert.deepEqual(await loadOperatorModels(missing), []);
  await assert.rejects(loadOperatorModels(missing, { required: true }), /cannot read the file/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-models-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'atelier.models.json'), '{ "models": [ }');
  await assert.rejects(loadOperatorModels(path.join(dir, 'atelier.models.json')), (e: Error) => e instanceof OperatorModelsError && /atelier\.models\.json is not valid .*not valid JSON/s.test(e.message));
});

test('every problem is reported, each naming the entry and the field', () => {
  const bad = goodModel();
  const problems = problemsOf({
    models: [
      { ...bad, nodeType: 'Bad-Name', colour: 'red' },
      { ...goodModel(), nodeType: 'flux_2_pro' },
      goodModel(),
      { ...goodModel(), modes: [{ ...goodModel().modes[0], subModelId: 'other' }] },
      {
        ...goodModel(),
        nodeType: 'broken_image',
        category: 'image',
        deprecated: { at: 'yesterday', replacement: 'nothing_here' },
        modes: [{
          subModelId: 'Broken_Image',
          label: 'x',
          category: 'text-to-picture',
          fields: ['prompt', 'bogus', { name: 'size', type: 'select', dataType: 'select', description: 'Size', options: ['s', 'm'], default: 'xl' }, { name: 'steps', type: 'integer', dataType: 'number', description: 'Steps', min: 1, max: 50, default: 0.5 }],
          pricing: { kind: 'per_unit', unit: 'pixel', microcreditsPerUnit: 1.5, inputField: 'num_images', multipliers: [{ field: 'size', basisPoints: { s: 10000 } }] },
          engine: { engine: 'midjourney', options: {} },
        }],
      },
      {
        ...goodModel(), nodeType: 'rep', modes: [{ ...goodModel().modes[0], subModelId: 'rep', engine: { engine: 'replicate', options: { version: 'abc' } } }],
      },
      {
        ...goodModel(), nodeType: 'comfy', modes: [{ ...goodModel().modes[0], subModelId: 'comfy', engine: { engine: 'comfyui', options: {} } }],
      },
    ],
  });
  const expect = [
    'models[0] ("Bad-Name"): unknown key "colour"',
    'models[0] ("Bad-Name").nodeType: "Bad-Name" must be snake_case',
    'models[1] ("flux_2_pro").nodeType: "flux_2_pro" is a built-in model; choose another name',
    'models[3] ("my_llm").nodeType: "my_llm" appears twice in the file',
    'models[4] ("broken_image").deprecated.at: must be an ISO 8601 date',
    'models[4] ("broken_image").modes[0].subModelId: "Broken_Image" must be kebab-case',
    'models[4] ("broken_image").modes[0].category: "text-to-picture" is not one of',
    'models[4] ("broken_image").modes[0].fields[1]: unknown standard field "bogus"',
    'models[4] ("broken_image").modes[0].fields[2].default: must be one of the options (s, m)',
    'models[4] ("broken_image").modes[0].fields[3].default: must be an integer',
    'models[4] ("broken_image").modes[0].pricing.unit: must be one of second, image, 1k_chars, 1k_tokens, megapixel',
    'models[4] ("broken_image").modes[0].pricing.microcreditsPerUnit: must be a non-negative integer',
    'models[4] ("broken_image").modes[0].pricing.inputField: must name one of this mode\'s fields',
    'models[4] ("broken_image").modes[0].engine.engine: must be one of openai, fal, replicate, comfyui',
    'models[5] ("rep").modes[0].engine.options.version: must be a 64-hex version id',
    'models[6] ("comfy").modes[0].engine.options.workflow: must be a ComfyUI prompt graph',
  ];
  for (const e of expect) assert.ok(problems.some((p) => p.startsWith(e)), `missing problem: ${e}\n got:\n${problems.join('\n')}`);
  // the multiplier with a missing option is caught only once the field is valid
  const p2 = problemsOf({ models: [{ ...goodModel(), modes: [{ ...goodModel().modes[0], fields: ['prompt', { name: 'size', type: 'select', dataType: 'select', description: 'Size', options: ['s', 'm'] }], pricing: { kind: 'flat', microcredits: 5, multipliers: [{ field: 'size', basisPoints: { s: 10000 } }] } }] }] });
  assert.deepEqual(p2, ['models[0] ("my_llm").modes[0].pricing.multipliers[0].basisPoints: option "m" of size has no multiplier']);
});

test('top-level shape and deprecation links', () => {
  assert.throws(() => parseOperatorModels([], 'f.json'), /the top level must be an object/);
  assert.throws(() => parseOperatorModels({ model: [] }, 'f.json'), /unknown key "model"[\s\S]*"models" must be an array/);
  const p = problemsOf({ models: [{ ...goodModel(), deprecated: { at: '2026-01-01', replacement: 'ghost_model' } }] });
  assert.deepEqual(p, ['models ("my_llm").deprecated.replacement: no model "ghost_model" exists']);
  const ok = parseOperatorModels({ models: [{ ...goodModel(), deprecated: { at: '2026-01-01', replacement: 'gpt_5_4' } }] }, 'f.json', { existingNodeTypes });
  assert.deepEqual(ok[0]!.deprecated, { at: '2026-01-01T00:00:00.000Z', replacement: 'gpt_5_4' });
  // another engine set (e.g. the registry adds local engines)
  assert.deepEqual(problemsOf({ models: [goodModel()] }, { engineIds: ['fal'] }), ['models[0] ("my_llm").modes[0].engine.engine: must be one of fal']);
});

test('example models run on their adapters: Ollama chat through the OpenAI fake, SDXL version through the Replicate fake', async () => {
  const models = await loadOperatorModels(EXAMPLE, { existingNodeTypes });
  const t = testContext();
  after(t.cleanup);

  const ollama = await startOpenAIFake({ models: ['llama3.2'] });
  after(() => ollama.close());
  const chat = models[0]!.modes[0]!;
  const out = await createOpenAIEngine({ baseUrl: `${ollama.url}/v1` }).execute({ nodeType: 'ollama_llama3_2', subModelId: chat.subModelId, input: { prompt: 'hi', max_tokens: 512 }, options: chat.engine.options! }, t.ctx);
  assert.equal((out.output as { text: string }).text, 'Hello from the fake model.');

  const rep = await startReplicateFake('tok_example_123');
  after(() => rep.close());
  const sdxl = models[1]!.modes[0]!;
  const imgs = await createReplicateEngine({ apiToken: 'tok_example_123', baseUrl: `${rep.url}/v1`, allowPrivate: true, pollIntervalMs: 5 })
    .execute({ nodeType: 'sdxl_replicate', subModelId: sdxl.subModelId, input: { prompt: 'a cat', num_images: 2, width: 1024, height: 1024 }, options: sdxl.engine.options! }, t.ctx);
  assert.equal((imgs.result as FileOutput[]).length, 2);
  const sent = rep.callsTo('POST', /^\/v1\/predictions$/)[0]!.json();
  assert.equal(sent.input.num_outputs, 2);
  assert.equal(sent.input.refine, 'expert_ensemble_refiner');
});
