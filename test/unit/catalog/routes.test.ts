import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyRoutes, holdPriceMicrocredits, parseRoutes, routedAvailability } from '../../../src/catalog/routes.js';
import { OperatorModelsError, parseOperatorModels } from '../../../src/catalog/operatorModels.js';
import { failedBeforeAccepted } from '../../../src/execution/routing.js';
import { rebuildError, serializeError } from '../../../src/execution/protocol.js';
import { ProviderHttpError, ProviderInputError, ProviderUnansweredError } from '../../../src/engines/remote/http.js';
import { EngineError } from '../../../src/engines/types.js';
import type { ModelDef } from '../../../src/catalog/types.js';

/** "routes" in atelier.models.json (catalog/routes.ts) and which failures let a run move to the next route (execution/routing.ts). */
const ENGINES = ['openai', 'fal', 'replicate', 'comfyui', 'espeak'];
const models: ModelDef[] = parseOperatorModels({
  models: [{
    nodeType: 'routed_image', name: 'Routed', description: 'd', category: 'image',
    modes: [
      { subModelId: 'routed-fast', label: 'Fast', category: 'text-to-image', fields: ['prompt'], pricing: { kind: 'flat', microcredits: 1000 }, engine: { engine: 'fal', options: { model: 'fal-ai/x' } } },
      { subModelId: 'routed-slow', label: 'Slow', category: 'text-to-image', fields: ['prompt'], pricing: { kind: 'flat', microcredits: 2000 }, engine: { engine: 'fal', options: { model: 'fal-ai/y' } } },
    ],
  }],
}, 'atelier.models.json');

describe('routes in atelier.models.json', () => {
  it('binds every mode of a model, a mode\'s own entry winning; the first route is the binding and a route without a price costs the mode\'s', () => {
    const routes = parseRoutes({
      routes: {
        'routed-slow': [{ name: 'only', engine: 'comfyui', options: { workflow: { 1: { class_type: 'X', inputs: {} } } } }],
        routed_image: [
          { name: 'fal', engine: 'fal', options: { model: 'fal-ai/x' } },
          { name: 'replicate', engine: 'replicate', options: { model: 'owner/name' }, pricing: { kind: 'flat', microcredits: 1500 } },
        ],
      },
    }, 'f', models, ENGINES);
    const [m] = applyRoutes(models, routes);
    const fast = m!.modes[0]!;
    assert.deepEqual(fast.routes!.map((r) => r.name), ['fal', 'replicate']);
    assert.equal(fast.engine.engine, 'fal');
    assert.equal(holdPriceMicrocredits(fast, {}), 1500, 'the hold is the dearest route');
    const slow = m!.modes[1]!;
    assert.deepEqual(slow.routes!.map((r) => r.name), ['only']);
    assert.equal(slow.engine.engine, 'comfyui');
    assert.equal(holdPriceMicrocredits(slow, {}), 2000);
  });

  it('names every problem: an unknown model, a bad name, a repeated name, an unknown engine or key, a bad price', () => {
    assert.throws(() => parseRoutes({
      routes: {
        no_such: [{ name: 'a', engine: 'fal', options: { model: 'x' } }],
        routed_image: [
          { name: 'Bad Name', engine: 'fal', options: { model: 'x' } },
          { name: 'twice', engine: 'nope' },
          { name: 'twice', engine: 'fal', options: { model: 'x' }, extra: 1 },
          { name: 'priced', engine: 'fal', options: { model: 'x' }, pricing: { kind: 'flat', microcredits: -1 } },
        ],
        'routed-fast': [],
      },
    }, 'atelier.models.json', models, ENGINES), (e: Error) => {
      assert.ok(e instanceof OperatorModelsError);
      assert.match(e.message, /routes\.no_such: no model or sub-model "no_such" exists/);
      assert.match(e.message, /routes\.routed_image\[0\]\.name: must be kebab-case/);
      assert.match(e.message, /routes\.routed_image\[1\]\.engine: must be one of/);
      assert.match(e.message, /routes\.routed_image\[2\]\.name: "twice" appears twice/);
      assert.match(e.message, /routes\.routed_image\[2\]: unknown key "extra"/);
      assert.match(e.message, /routes\.routed-fast: must be a list of 1 to 8 routes/);
      return true;
    });
    assert.throws(() => parseRoutes({ routes: { routed_image: [{ name: 'p', engine: 'fal', options: { model: 'x' }, pricing: { kind: 'flat', microcredits: -1 } }] } }, 'f', models, ENGINES), /routes\.routed_image\[0\]\.pricing/);
  });

  it('the operator file accepts "routes" beside or without "models"', () => {
    assert.deepEqual(parseOperatorModels({ routes: {} }, 'f'), []);
  });

  it('a routed mode is available while any route is, and says why none is otherwise', () => {
    const [m] = applyRoutes(models, parseRoutes({ routes: { 'routed-fast': [{ name: 'a', engine: 'fal', options: { model: 'x' } }, { name: 'b', engine: 'espeak' }] } }, 'f', models, ENGINES));
    const mode = m!.modes[0]!;
    assert.equal(routedAvailability(mode, (r) => ({ available: r.name === 'b' })).available, true);
    const none = routedAvailability(mode, () => ({ available: false, reason: 'set FAL_KEY' }));
    assert.equal(none.available, false);
    assert.match(none.reason!, /a: set FAL_KEY; b: set FAL_KEY/);
  });
});

describe('which failures move a run to the next route', () => {
  // Every engine runs in a child process: the failure is judged as it arrives on the other side.
  const across = (err: Error) => rebuildError(serializeError(err));
  it('5xx and 429 past the retries, and a refused connection: the provider took no work', () => {
    assert.equal(failedBeforeAccepted(across(new ProviderHttpError('fal failed (HTTP 503)', 503, true))), true);
    assert.equal(failedBeforeAccepted(across(new ProviderHttpError('rate limited (HTTP 429)', 429, true))), true);
    assert.equal(failedBeforeAccepted(across(new ProviderUnansweredError('cannot reach fal: ECONNREFUSED', false))), true);
  });
  it('not an input refusal, a bad key, a 501, a time-out after sending, or an engine\'s own failure', () => {
    assert.equal(failedBeforeAccepted(across(new ProviderInputError('rejected the input (HTTP 422)', 422))), false);
    assert.equal(failedBeforeAccepted(across(new ProviderHttpError('refused the credentials (HTTP 401)', 401, false))), false);
    assert.equal(failedBeforeAccepted(across(new ProviderHttpError('HTTP 501', 501, false))), false);
    assert.equal(failedBeforeAccepted(across(new ProviderUnansweredError('did not answer within 60 s', true))), false);
    assert.equal(failedBeforeAccepted(across(new EngineError('ffmpeg crashed'))), false);
  });
});

describe('the example file', () => {
  it('routes its Ollama model over two servers, the second cheaper', async () => {
    const { loadOperatorModels } = await import('../../../src/catalog/operatorModels.js');
    const { loadRoutes } = await import('../../../src/catalog/routes.js');
    const file = new URL('../../../examples/atelier.models.json', import.meta.url).pathname;
    const defined = await loadOperatorModels(file, { required: true });
    const routed = applyRoutes(defined, await loadRoutes(file, defined, ENGINES));
    const mode = routed.find((m) => m.nodeType === 'ollama_llama3_2')!.modes[0]!;
    assert.deepEqual(mode.routes!.map((r) => r.name), ['local-ollama', 'second-server']);
    const input = { prompt: 'x'.repeat(4000), max_tokens: 512 };
    assert.equal(holdPriceMicrocredits(mode, input), Math.max(...mode.routes!.map((r) => holdPriceMicrocredits({ ...mode, routes: [r] }, input))));
  });
});
