import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { falModels, startFalFake, type FalFake } from '../helpers/providers/fal.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { f } from '../../src/catalog/fields.js';
import type { ModelDef } from '../../src/catalog/types.js';

// Clients of the hosted service run multi-mode models without subModelId, may name the mode inside
// `input`, and price inputs the model would refuse (hosted-compat.md, "Models and catalog", "Estimates").
// Every call goes through both path forms.
const FORMS = ['', '/api'] as const;
const FAL_KEY = 'compat-fal-key';

let srv: TestServer;
let fal: FalFake;
let key: string;
before(async () => {
  fal = await startFalFake(FAL_KEY);
  // nano-banana-pro on fal answers as fal's image models do: { images: [{ url, content_type, … }] }.
  falModels['fal-ai/nano-banana-pro'] = falModels['fal-ai/flux-pro/v1.1']!;
  // The engine children read the provider settings from the environment, as a deployment's do.
  Object.assign(process.env, { FAL_KEY, FAL_QUEUE_URL: `${fal.url}/queue`, FAL_BASE_URL: `${fal.url}/run`, FAL_STORAGE_URL: fal.url, ATELIER_ALLOW_PRIVATE_URLS: '1' });
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  key = (await srv.user({ microcredits: 100_000_000n })).key;
});
after(async () => {
  await srv.close();
  await fal.close();
});

describe('default sub-models', () => {
  test('POST /v1/nodes/nano_banana_pro/run {"input":{"prompt":…}} without subModelId → 202 and the default mode runs (was 400 "has several modes")', async () => {
    const schema = (await srv.request('GET', '/v1/models/nano_banana_pro/schema', { key })).body;
    for (const base of FORMS) {
      const created = await srv.request('POST', `${base}/v1/nodes/nano_banana_pro/run`, { key, body: { input: { prompt: 'a lighthouse at dusk' } } });
      assert.equal(created.status, 202, `${base}: ${created.text}`);
      const run = await waitForStatus(srv, key, `${base}/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
      assert.equal(run.status, 'COMPLETED', run.error);
      assert.equal(run.subModelId, schema.defaultSubModelId);
      assert.ok(run.output.result.length >= 1);
    }
  });

  test('a subModelId inside input names the mode and is no input; two different modes are refused', async () => {
    for (const base of FORMS) {
      const created = await srv.request('POST', `${base}/v1/nodes/sfxr_sound_effects/run`, { key, body: { input: { subModelId: 'sfxr-jump', seed: 3 } } });
      assert.equal(created.status, 202, `${base}: ${created.text}`);
      const run = await waitForStatus(srv, key, `${base}/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED', run.error);
      assert.equal(run.subModelId, 'sfxr-jump');
      assert.ok(!('subModelId' in run.input));
      const same = await srv.request('POST', `${base}/v1/nodes/sfxr_sound_effects/run`, { key, body: { subModelId: 'sfxr-jump', input: { subModelId: 'sfxr-jump', seed: 3 } } });
      assert.equal(same.status, 202, same.text);
      const b = expectErrorBody(await srv.request('POST', `${base}/v1/nodes/sfxr_sound_effects/run`, { key, body: { subModelId: 'sfxr-coin', input: { subModelId: 'sfxr-jump' } } }), 400, 'VALIDATION_ERROR');
      assert.equal(b.details[0].path, 'body.input.subModelId');
      expectErrorBody(await srv.request('POST', `${base}/v1/nodes/sfxr_sound_effects/run`, { key, body: { input: { subModelId: 'sfxr-nope' } } }), 400, 'VALIDATION_ERROR');
    }
  });

  test('every model shows its defaultSubModelId in the list, search, schema, pricing and catalog', async () => {
    for (const base of FORMS) {
      const list = (await srv.request('GET', `${base}/v1/models`, { key })).body as Array<{ nodeType: string; defaultSubModelId: string; subModels?: Array<{ subModelId: string }> }>;
      assert.ok(list.length > 30);
      const catalog = (await srv.request('GET', `${base}/v1/models/catalog`)).body;
      const byNodeType = new Map(Object.values(catalog.models as Record<string, { nodeType: string; defaultSubModelId: string }>).map((m) => [m.nodeType, m]));
      for (const m of list) {
        assert.equal(typeof m.defaultSubModelId, 'string', m.nodeType);
        if (m.subModels) assert.ok(m.subModels.some((s) => s.subModelId === m.defaultSubModelId), m.nodeType);
        const schema = (await srv.request('GET', `${base}/v1/models/${m.nodeType}/schema`, { key })).body;
        assert.equal(schema.defaultSubModelId, m.defaultSubModelId);
        // A schema without subModelId describes the default mode (null for a single-mode model, as its runs say).
        assert.equal(schema.subModelId, m.subModels ? m.defaultSubModelId : null, m.nodeType);
        const pricing = (await srv.request('GET', `${base}/v1/models/${m.nodeType}/pricing`, { key })).body;
        assert.equal(pricing.subModelId, schema.subModelId);
        const entry = byNodeType.get(m.nodeType);
        if (entry) assert.equal(entry.defaultSubModelId, m.defaultSubModelId);
      }
      const search = (await srv.request('GET', `${base}/v1/models/search?query=image`, { key })).body;
      for (const entries of Object.values(search.modelCatalog as Record<string, Array<{ defaultSubModelId: string }>>)) {
        for (const e of entries) assert.equal(typeof e.defaultSubModelId, 'string');
      }
    }
  });

  test('a workflow node without subModelId runs its model\'s default mode', async () => {
    const schema = (await srv.request('GET', '/v1/models/sfxr_sound_effects/schema', { key })).body;
    for (const base of FORMS) {
      const wf = await srv.request('POST', `${base}/v1/workflows`, {
        key,
        body: { name: 'Beep', nodes: [{ id: 'req', type: 'request', data: { fields: [] } }, { id: 'fx', type: 'sfxr_sound_effects', data: { seed: 5 } }, { id: 'res', type: 'response' }], edges: [{ source: 'fx', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' }] },
      });
      assert.equal(wf.status, 201, wf.text);
      assert.equal(wf.body.nodes.find((n: { id: string }) => n.id === 'fx').subModelId, schema.defaultSubModelId);
      const created = await srv.request('POST', `${base}/v1/runs`, { key, body: { workflowId: wf.body.id, values: {} } });
      assert.equal(created.status, 202, created.text);
      const run = await waitForStatus(srv, key, `${base}/v1/runs/${created.body.runId}?inDetails=true`, ['COMPLETED', 'FAILED'], 120_000);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.error));
      assert.equal(run.nodeRuns[0].subModelId, schema.defaultSubModelId);
    }
  });

  test('a model\'s hosted parentModelId resolves as a modelId; the defaultSubModelId picks the mode', () => {
    const mode = (id: string) => ({ subModelId: id, label: id, category: 'text-to-image' as const, fields: [f.prompt()], outputs: [{ name: 'result', dataType: 'image' as const }], pricing: { kind: 'flat' as const, microcredits: 1 }, engine: { engine: 'x' } });
    const model: ModelDef = { nodeType: 'flux_2_max', parentModelId: 'flux-2-max', defaultSubModelId: 'flux-2-max-edit', name: 'F', description: 'd', category: 'image', icon: 'i', accent: 'a', provider: 'fal', modes: [mode('flux-2-max-text'), mode('flux-2-max-edit')] };
    const catalog = new Catalog([model], () => ({ available: true }));
    assert.equal(catalog.resolveModelId('flux-2-max').mode.subModelId, 'flux-2-max-edit');
    assert.equal(catalog.resolveModelId('flux_2_max').mode.subModelId, 'flux-2-max-edit');
    assert.equal(catalog.resolveModelId('flux-2-max-text').mode.subModelId, 'flux-2-max-text');
    assert.equal(catalog.resolveNode('flux_2_max', undefined, { requireSubModel: true }).mode.subModelId, 'flux-2-max-edit');
    assert.throws(() => catalog.resolveModelId('flux-2'), /No model or sub-model/);
  });
});

describe('lenient estimates; strict runs', () => {
  const estimate = (base: string, body: unknown) => srv.request('POST', `${base}/v1/nodes/estimate-credits`, { key, body });

  test('an unknown field or an invalid value answers 200 with the base estimate and names what it ignored', async () => {
    for (const base of FORMS) {
      const plain = await estimate(base, { nodeType: 'nano_banana_pro', input: { prompt: 'x' } });
      assert.equal(plain.status, 200, plain.text);
      const basePrice = plain.body.estimates[0].microcredits;
      assert.ok(basePrice > 0);
      assert.ok(!('ignored' in plain.body.estimates[0]), 'nothing ignored, no ignored list');

      const unknown = await estimate(base, { nodeType: 'nano_banana_pro', input: { prompt: 'x', not_a_field: 1, output_colour: 'red' } });
      assert.equal(unknown.status, 200, unknown.text);
      assert.equal(unknown.body.estimates[0].microcredits, basePrice);
      assert.deepEqual(unknown.body.estimates[0].ignored.map((i: { path: string }) => i.path).sort(), ['body.node[0].data.not_a_field', 'body.node[0].data.output_colour']);
      for (const i of unknown.body.estimates[0].ignored) assert.match(i.message, /not an input of this model/);

      // The valid part is priced: 2 images cost twice one; the out-of-range count is priced at its default.
      const two = await estimate(base, { nodeType: 'nano_banana_pro', input: { prompt: 'x', num_images: 2, bogus: true } });
      assert.equal(two.body.estimates[0].microcredits, 2 * basePrice);
      const huge = await estimate(base, { nodeType: 'nano_banana_pro', input: { prompt: 'x', num_images: 999 } });
      assert.equal(huge.status, 200, huge.text);
      assert.equal(huge.body.estimates[0].microcredits, basePrice);
      assert.equal(huge.body.estimates[0].ignored[0].path, 'body.node[0].data.num_images');
      assert.ok(huge.body.estimates[0].pricedAtDefault.includes('num_images'));

      // The workflow estimate too; an unknown mode is the default's price.
      const wf = await srv.request('POST', `${base}/v1/workflows/estimate-credits`, { key, body: { nodes: [{ type: 'nano_banana_pro', data: { prompt: 'x', nope: 1 } }, { type: 'nano_banana_pro', subModelId: 'no-such-mode' }] } });
      assert.equal(wf.status, 200, wf.text);
      assert.equal(wf.body.totalMicrocredits, 2 * basePrice);
      assert.equal(wf.body.estimates[0].ignored[0].path, 'body.nodes[0].data.nope');
      assert.equal(wf.body.estimates[1].ignored[0].path, 'body.nodes[1].subModelId');

      // Unknown models are still 404; the run of the refused input is still 400.
      expectErrorBody(await estimate(base, { nodeType: 'no_such_model', input: {} }), 404, 'MODEL_NOT_FOUND');
      const run = expectErrorBody(await srv.request('POST', `${base}/v1/nodes/nano_banana_pro/run`, { key, body: { input: { prompt: 'x', not_a_field: 1 } } }), 400, 'VALIDATION_ERROR');
      assert.equal(run.details[0].path, 'body.input.not_a_field');
    }
  });

  test('a subModelId inside the estimate\'s input names the mode', async () => {
    const jump = await estimate('', { nodeType: 'sfxr_sound_effects', subModelId: 'sfxr-jump', input: {} });
    const inner = await estimate('/api', { nodeType: 'sfxr_sound_effects', input: { subModelId: 'sfxr-jump' } });
    assert.equal(inner.status, 200, inner.text);
    assert.equal(inner.body.estimates[0].microcredits, jump.body.estimates[0].microcredits);
    assert.ok(!('ignored' in inner.body.estimates[0]));
  });
});
