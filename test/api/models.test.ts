import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { builtinModels as allModels } from '../../src/catalog/models/index.js';

const builtinModels = allModels();
import { inputSchema } from '../../src/catalog/schema.js';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;
before(async () => {
  srv = await startTestServer();
  key = (await srv.user()).key;
});
after(async () => {
  await srv.close();
});
const get = (p: string) => srv.request('GET', p, { key });
const post = (p: string, body: unknown) => srv.request('POST', p, { key, body });

describe('catalog definitions', () => {
  test('about 80 models covering every category and every fine category the spec names', () => {
    assert.ok(builtinModels.length >= 75, `only ${builtinModels.length} models`);
    const cats = new Set(builtinModels.map((m) => m.category));
    for (const c of ['image', 'video', 'audio', 'llm', 'utility']) assert.ok(cats.has(c as never), `no ${c} model`);
    const fine = new Set(builtinModels.flatMap((m) => m.modes.map((x) => x.category)));
    for (const c of ['text-to-image', 'image-to-image', 'image-to-video', 'text-to-speech', 'transcription', 'lipsync', 'music-generation', 'sound-effects']) {
      assert.ok(fine.has(c as never), `no ${c} mode`);
    }
  });

  test('every mode schema is a valid draft 2020-12 schema whose defaults validate against itself', () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: true });
    for (const model of builtinModels) {
      for (const mode of model.modes) {
        const schema = inputSchema(mode, { requireRequired: false });
        const validate = ajv.compile(schema);
        const defaults = Object.fromEntries(mode.fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default]));
        assert.ok(validate(defaults), `${mode.subModelId} defaults invalid: ${JSON.stringify(validate.errors)}`);
        for (const f of mode.fields) assert.ok(f.description.length > 0, `${mode.subModelId}.${f.name} has no description`);
      }
      assert.ok(model.description.length >= 20, `${model.nodeType} needs a real description`);
    }
  });
});

describe('GET /v1/models and per-model lookups', () => {
  test('lists every model with availability; every id resolves in schema and pricing', async () => {
    const res = await get('/v1/models');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    assert.equal(res.body.length, builtinModels.length);
    const ids: string[] = [];
    for (const m of res.body) {
      for (const k of ['nodeType', 'name', 'description', 'category', 'icon', 'accent', 'provider']) assert.equal(typeof m[k], 'string', `${m.nodeType}.${k}`);
      assert.equal(typeof m.available, 'boolean');
      if (!m.available) assert.ok(m.unavailableReason, `${m.nodeType} says why it is unavailable`);
      if (m.subModels) {
        assert.ok(m.subModels.length > 1);
        for (const s of m.subModels) ids.push(s.subModelId);
      } else ids.push(m.nodeType);
    }
    for (const id of ids) {
      const schema = await get(`/v1/models/${id}/schema`);
      assert.equal(schema.status, 200, `schema of ${id}: ${schema.text}`);
      assert.equal(schema.body.modelId, id);
      assert.ok(Array.isArray(schema.body.fields) && schema.body.jsonSchema.type === 'object');
      const pricing = await get(`/v1/models/${id}/pricing`);
      assert.equal(pricing.status, 200, `pricing of ${id}: ${pricing.text}`);
      assert.ok(pricing.body.summary.length > 0 && pricing.body.examples.length > 0);
      for (const ex of pricing.body.examples) assert.ok(Number.isSafeInteger(ex.microcredits) && ex.microcredits >= 0);
    }
  });

  test('a multi-mode nodeType resolves to its default mode; unknown ids are 404', async () => {
    const multi = builtinModels.find((m) => m.modes.length > 1)!;
    const r = await get(`/v1/models/${multi.nodeType}/schema`);
    assert.equal(r.body.subModelId, (multi.modes.find((m) => m.subModelId === multi.defaultSubModelId) ?? multi.modes[0]!).subModelId);
    assert.equal(r.body.defaultSubModelId, r.body.subModelId);
    expectErrorBody(await get('/v1/models/no_such_model/schema'), 404, 'MODEL_NOT_FOUND');
    expectErrorBody(await get('/v1/models/no_such_model/pricing'), 404, 'MODEL_NOT_FOUND');
    expectErrorBody(await get(`/v1/models/${'x'.repeat(101)}/schema`), 400, 'VALIDATION_ERROR');
  });

  test('the catalog lists every live model in the hosted shape, with a default sub-model and an estimate description', async () => {
    const r = await get('/v1/models/catalog');
    assert.equal(r.status, 200);
    const live = builtinModels.filter((m) => !m.deprecated);
    assert.equal(r.body.version, 1);
    assert.equal(Object.keys(r.body.models).length, live.length);
    for (const m of live) {
      const entry = r.body.models[m.parentModelId ?? m.nodeType];
      assert.ok(entry, m.nodeType);
      assert.equal(entry.nodeType, m.nodeType);
      assert.deepEqual(entry.subModels.map((s: { subModelId: string }) => s.subModelId), m.modes.map((x) => x.subModelId));
      assert.ok(entry.subModels.some((s: { subModelId: string }) => s.subModelId === entry.defaultSubModelId));
      assert.ok(entry.estimateDescription.length > 0);
    }
  });
});

describe('GET /v1/models/search', () => {
  test('every keyword the spec names matches its category, 200 each time', async () => {
    const expectations: Record<string, string[]> = {
      video: ['image-to-video', 'video-utility'],
      'text-to-speech': ['text-to-speech'],
      lipsync: ['lipsync'],
      transcription: ['transcription'],
      'music-generation': ['music-generation'],
      'sound-effects': ['sound-effects'],
      'image-to-video': ['image-to-video'],
    };
    for (const [q, cats] of Object.entries(expectations)) {
      const r = await get(`/v1/models/search?query=${encodeURIComponent(q)}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.noMatch, undefined, q);
      for (const c of cats) assert.ok(r.body.modelCatalog[c]?.length > 0, `${q} → ${c}`);
      for (const c of Object.keys(r.body.modelCatalog)) assert.ok(r.body.categoryRoles[c], `role for ${c}`);
      assert.equal(r.body.hint, undefined, 'no hint when a query was given');
      assert.ok(r.body.usage.includes('/schema'));
    }
    const only = await get('/v1/models/search?query=lipsync');
    assert.deepEqual(Object.keys(only.body.modelCatalog), ['lipsync']);
    assert.equal(only.body.categoryRoles.lipsync, 'TRANSFORM');
  });

  test('`image` matches every image category and nothing else', async () => {
    const r = await get('/v1/models/search?query=image');
    const imageCats = new Set(builtinModels.filter((m) => m.category === 'image' && !m.deprecated).flatMap((m) => m.modes.map((x) => x.category)));
    assert.deepEqual(new Set(Object.keys(r.body.modelCatalog)), imageCats);
    assert.equal(r.body.categoryRoles['text-to-image'], 'GENERATE');
    assert.equal(r.body.categoryRoles['image-to-image'], 'EDIT');
  });

  test('keywords match names and descriptions; no query gives everything and a hint', async () => {
    const qr = await get('/v1/models/search?query=qr');
    assert.ok(Object.values(qr.body.modelCatalog).flat().some((e: any) => e.nodeType === 'qr_code'));
    const all = await get('/v1/models/search');
    assert.ok(all.body.hint);
    const count = Object.values(all.body.modelCatalog).flat().length;
    assert.equal(count, builtinModels.filter((m) => !m.deprecated).reduce((n, m) => n + m.modes.length, 0));
  });

  test('a query that matches nothing is 200 with noMatch and alternatives, no modelCatalog', async () => {
    const r = await get('/v1/models/search?query=zzzqqq-nothing');
    assert.equal(r.status, 200);
    assert.equal(typeof r.body.noMatch, 'string');
    assert.equal(r.body.modelCatalog, undefined);
    assert.ok(r.body.categoryRoleHints.GENERATE.includes('text-to-image'));
    assert.ok(r.body.categoryRoleHints.TRANSCRIBE.includes('transcription'));
  });
});

describe('estimates', () => {
  const someNodes = () => {
    const local = builtinModels.filter((m) => !m.deprecated).slice(0, 6);
    return local.map((m) => ({ type: m.nodeType, data: {}, ...(m.modes.length > 1 ? { subModelId: m.modes.at(-1)!.subModelId } : {}) }));
  };

  test('workflow estimate: total equals the sum, in input order, and matches single-node estimates', async () => {
    const nodes = [{ type: 'request' }, ...someNodes(), { type: 'response' }];
    const r = await post('/v1/workflows/estimate-credits', { nodes });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.estimates.length, nodes.length);
    assert.equal(r.body.totalMicrocredits, r.body.estimates.reduce((s: number, e: { microcredits: number }) => s + e.microcredits, 0));
    assert.equal(r.body.estimates[0].microcredits, 0);
    for (let i = 1; i < nodes.length - 1; i++) {
      const n = nodes[i] as { type: string; subModelId?: string };
      const single = await post('/v1/nodes/estimate-credits', { nodeType: n.type, subModelId: n.subModelId, data: {} });
      assert.equal(single.status, 200, single.text);
      assert.equal(single.body.estimates[0].microcredits, r.body.estimates[i].microcredits, n.type);
    }
  });

  test('the estimate moves with the input the way the pricing rule says', async () => {
    const perImage = builtinModels.find((m) => m.modes[0]!.pricing.kind === 'per_unit' && (m.modes[0]!.pricing as { unit: string }).unit === 'image' && m.modes[0]!.fields.some((f) => f.name === 'num_images'))!;
    const one = await post('/v1/nodes/estimate-credits', { nodeType: perImage.nodeType, subModelId: perImage.modes.length > 1 ? perImage.modes[0]!.subModelId : undefined, data: { num_images: 1 } });
    const two = await post('/v1/nodes/estimate-credits', { nodeType: perImage.nodeType, subModelId: perImage.modes.length > 1 ? perImage.modes[0]!.subModelId : undefined, data: { num_images: 2 } });
    assert.equal(two.body.estimates[0].microcredits, 2 * one.body.estimates[0].microcredits);
  });

  test('limits and bad input give 400s that name the node and field', async () => {
    const many = Array.from({ length: 101 }, () => ({ type: 'request' }));
    expectErrorBody(await post('/v1/workflows/estimate-credits', { nodes: many }), 400, 'TOO_MANY_NODES');
    expectErrorBody(await post('/v1/nodes/estimate-credits', { nodes: many }), 400, 'TOO_MANY_NODES');
    assert.equal((await post('/v1/workflows/estimate-credits', { nodes: many.slice(0, 100) })).status, 200);

    const b = expectErrorBody(await post('/v1/workflows/estimate-credits', { nodes: [{ type: 'request' }, { type: 'nope_model' }] }), 404, 'MODEL_NOT_FOUND');
    assert.equal(b.details[0].path, 'body.nodes[1].type');
    const multi = builtinModels.find((m) => m.modes.length > 1)!;
    // Estimates are lenient (hosted-compat.md): an unknown mode, an invalid value or an unknown field is
    // priced at the default and named in `ignored`; runs stay strict (test/compat/estimates.test.ts).
    let e = await post('/v1/workflows/estimate-credits', { nodes: [{ type: multi.nodeType, subModelId: 'not-a-mode' }] });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.body.estimates[0].ignored[0].path, 'body.nodes[0].subModelId');
    const withSelect = builtinModels.find((m) => !m.deprecated && m.modes[0]!.fields.some((f) => f.type === 'select'))!;
    const sel = withSelect.modes[0]!.fields.find((f) => f.type === 'select')!;
    e = await post('/v1/workflows/estimate-credits', { nodes: [{ type: withSelect.nodeType, subModelId: withSelect.modes.length > 1 ? withSelect.modes[0]!.subModelId : undefined, data: { [sel.name]: '__bogus__' } }] });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.body.estimates[0].ignored[0].path, `body.nodes[0].data.${sel.name}`);
    e = await post('/v1/workflows/estimate-credits', { nodes: [{ type: 'request' }, { type: withSelect.nodeType, data: { not_a_field: 1 } }] });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.body.estimates[1].ignored[0].path, 'body.nodes[1].data.not_a_field');
    expectErrorBody(await post('/v1/workflows/estimate-credits', { nodes: 'x' }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await post('/v1/workflows/estimate-credits', {}), 400, 'VALIDATION_ERROR');
    expectErrorBody(await srv.request('POST', '/v1/workflows/estimate-credits', { key, raw: '{"nodes":[', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_JSON');
    expectErrorBody(await post('/v1/nodes/estimate-credits', {}), 400, 'VALIDATION_ERROR');
  });
});

describe('deprecated models', () => {
  test('are listed with replacements and a legacy history that pages', async () => {
    const r = await get('/v1/nodes/deprecated-models');
    assert.equal(r.status, 200);
    assert.ok(r.body.items.length >= 2);
    for (const item of r.body.items) {
      assert.ok(builtinModels.some((m) => m.nodeType === item.replacement && !m.deprecated), `${item.nodeType} → ${item.replacement}`);
      assert.ok(item.runCount >= 2);
    }
    const first = r.body.items[0];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/v1/nodes/deprecated-models/${first.nodeType}/runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.items.map((i: { id: string }) => i.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, first.runCount);
    assert.equal(new Set(seen).size, seen.length);
    // Listing twice does not seed twice.
    assert.equal((await get('/v1/nodes/deprecated-models')).body.items[0].runCount, first.runCount);
  });

  test('unknown or live models are 404, malformed types 400', async () => {
    expectErrorBody(await get('/v1/nodes/deprecated-models/not_a_model/runs'), 404, 'NOT_FOUND');
    const live = builtinModels.find((m) => !m.deprecated)!;
    expectErrorBody(await get(`/v1/nodes/deprecated-models/${live.nodeType}/runs`), 404, 'NOT_FOUND');
    expectErrorBody(await get('/v1/nodes/deprecated-models/Bad-Type!/runs'), 400, 'VALIDATION_ERROR');
    expectErrorBody(await get(`/v1/nodes/deprecated-models/${builtinModels.find((m) => m.deprecated)!.nodeType}/runs?cursor=garbage`), 400, 'VALIDATION_ERROR');
    expectErrorBody(await get(`/v1/nodes/deprecated-models/${builtinModels.find((m) => m.deprecated)!.nodeType}/runs?limit=0`), 400, 'VALIDATION_ERROR');
  });
});
