import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';

// Schema and catalog answers as a strict client of the hosted service validates them (hosted-compat.md,
// "Models and catalog"): hosted field vocabulary, bare options in schemas, `{ value, label }` options in
// the public catalog, and never a `null` where a property is absent. Every call goes through both forms.
const FORMS = ['', '/api'] as const;
const HOSTED_TYPES = new Set(['image', 'video', 'audio', 'file', 'avmedia', 'text', 'textarea', 'select', 'slider', 'number', 'toggle', 'multi-select', 'composite-select', 'custom-select', 'array_of_objects', 'array_of_text', 'json']);
const DATA_TYPES = new Set(['string', 'string[]', 'number', 'number[]', 'boolean', 'object', 'object[]']);

/** Paths of every null in a JSON value, except at the keys the API documents as null by meaning. */
function nulls(v: unknown, allowed: Set<string> = new Set(), where = '$'): string[] {
  if (v === null) return [where];
  if (Array.isArray(v)) return v.flatMap((x, i) => nulls(x, allowed, `${where}[${i}]`));
  if (typeof v === 'object' && v) {
    return Object.entries(v).flatMap(([k, x]) => (x === null && allowed.has(k) ? [] : nulls(x, allowed, `${where}.${k}`)));
  }
  return [];
}

/** A strict client's check of one schema field (the shape a third-party TypeScript client validates). */
function checkSchemaField(modelId: string, fd: Record<string, unknown>): void {
  const at = `${modelId}.${String(fd.name)}`;
  assert.equal(typeof fd.name, 'string', at);
  assert.ok(HOSTED_TYPES.has(fd.type as string), `${at}: type ${String(fd.type)}`);
  assert.ok(DATA_TYPES.has(fd.dataType as string), `${at}: dataType ${String(fd.dataType)}`);
  assert.equal(typeof fd.required, 'boolean', at);
  assert.equal(typeof fd.label, 'string', at);
  if ('options' in fd) {
    assert.ok(Array.isArray(fd.options), `${at}: options is an array`);
    for (const o of fd.options as unknown[]) assert.ok(typeof o === 'string' || typeof o === 'number', `${at}: options are bare values`);
  }
  for (const n of ['min', 'max', 'step', 'maxLength', 'maxItems', 'maxImages']) if (n in fd) assert.equal(typeof fd[n], 'number', `${at}.${n}`);
  if (fd.type === 'slider') assert.ok(typeof fd.min === 'number' && typeof fd.max === 'number', `${at}: a slider has a range`);
  if (fd.widget === 'images' || fd.widget === 'videos') assert.equal(fd.dataType, 'string[]', `${at}: a media list is string[]`);
  if (fd.widget === 'boolean') assert.equal(fd.type, 'toggle', at);
}

let srv: TestServer;
let key: string;
before(async () => {
  srv = await startTestServer();
  key = (await srv.user()).key;
});
after(async () => {
  await srv.close();
});

describe('GET /v1/models/{modelId}/schema in the hosted vocabulary', () => {
  test('every model and sub-model: hosted type/dataType, bare options, labels, no null anywhere', async () => {
    const list = (await srv.request('GET', '/v1/models', { key })).body as Array<{ nodeType: string; subModels?: Array<{ subModelId: string }> }>;
    const ids = list.flatMap((m) => [m.nodeType, ...(m.subModels ?? []).map((s) => s.subModelId)]);
    let sliders = 0;
    let lists = 0;
    for (const base of FORMS) {
      for (const id of ids) {
        const res = await srv.request('GET', `${base}/v1/models/${id}/schema`, { key });
        assert.equal(res.status, 200, `${id}: ${res.text}`);
        // subModelId is null for a single-mode model by meaning (as in its run records); nothing else is.
        assert.deepEqual(nulls(res.body, new Set(['subModelId'])), [], `${id} has nulls`);
        assert.equal(typeof res.body.modelId, 'string');
        assert.equal(typeof res.body.name, 'string');
        assert.equal(typeof res.body.description, 'string');
        assert.ok(res.body.jsonSchema.type === 'object' && Array.isArray(res.body.outputs) && typeof res.body.defaults === 'object', 'Atelier\'s own parts stay');
        for (const fd of res.body.fields) {
          checkSchemaField(id, fd);
          if (fd.type === 'slider') sliders++;
          if (fd.dataType === 'string[]') lists++;
        }
      }
    }
    assert.ok(sliders > 0 && lists > 0, 'the catalog has sliders and media lists');
  });

  test('the reproduction: no "options":null, "min":null, "max":null, "maxLength":null in any schema', async () => {
    for (const base of FORMS) {
      const res = await srv.request('GET', `${base}/v1/models/sfxr-jump/schema`, { key });
      assert.doesNotMatch(res.text, /:null/);
      assert.doesNotMatch((await srv.request('GET', `${base}/v1/models/espeak_tts/schema`, { key })).text.replace('"subModelId":null', ''), /:null/);
    }
  });
});

describe('the public catalog in the hosted shape', () => {
  test('GET /v1/models/catalog without Authorization (was 401, then { total, categories }): { version: 1, generatedAt, models }', async () => {
    for (const base of FORMS) {
      const res = await srv.request('GET', `${base}/v1/models/catalog`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.headers.get('x-ratelimit-limit'), 'keyless requests are counted per address');
      const body = res.body;
      assert.equal(body.version, 1);
      assert.ok(!Number.isNaN(Date.parse(body.generatedAt)));
      assert.deepEqual(nulls(body), []);
      const entries = Object.entries(body.models as Record<string, any>);
      assert.ok(entries.length > 30);
      for (const [id, m] of entries) {
        assert.equal(m.parentModelId, id);
        for (const k of ['parentModelId', 'defaultSubModelId', 'nodeKind', 'nodeType', 'name', 'description', 'icon', 'accent', 'category', 'providerType', 'providerLabel']) assert.equal(typeof m[k], 'string', `${id}.${k}`);
        assert.ok(['image', 'video', 'audio', 'llm', 'utility'].includes(m.nodeKind), `${id}.nodeKind ${m.nodeKind}`);
        assert.equal(typeof m.cost, 'object');
        assert.equal(typeof m.available, 'boolean');
        assert.ok(Array.isArray(m.inputFieldOptions) && Array.isArray(m.outputFieldOptions) && m.outputFieldOptions.length > 0);
        assert.ok(m.subModels.length > 0 && m.subModels.some((s: any) => s.subModelId === m.defaultSubModelId));
        for (const s of m.subModels) {
          for (const k of ['subModelId', 'label', 'category']) assert.equal(typeof s[k], 'string', `${id}/${s.subModelId}.${k}`);
          assert.equal(s.inputSchema.type, 'object');
          if ('defaultEstimateMicrocredits' in s) assert.ok(Number.isSafeInteger(s.defaultEstimateMicrocredits));
          for (const fd of [...s.inputFieldOptions, ...s.outputFieldOptions]) {
            assert.equal(typeof fd.zodExpectedName, 'string');
            assert.ok(HOSTED_TYPES.has(fd.type), `${s.subModelId}.${fd.zodExpectedName}: ${fd.type}`);
            assert.ok(DATA_TYPES.has(fd.dataType), `${s.subModelId}.${fd.zodExpectedName}: ${fd.dataType}`);
            if (fd.options) for (const o of fd.options) assert.ok('value' in o && typeof o.label === 'string', 'catalog options are { value, label }');
          }
        }
      }
      assert.equal((body.models.sfxr_sound_effects ?? Object.values(body.models).find((m: any) => m.nodeType === 'sfxr_sound_effects')).providerType, 'internal');
    }
  });

  test('with a key the catalog answers the same; a bad key is refused', async () => {
    const keyed = await srv.request('GET', '/api/v1/models/catalog', { key });
    assert.equal(keyed.status, 200);
    assert.deepEqual(keyed.body, (await srv.request('GET', '/v1/models/catalog')).body);
    expectErrorBody(await srv.request('GET', '/v1/models/catalog', { key: 'gx_wrong' }), 401, 'UNAUTHORIZED');
  });
});

describe('no null for an absent property, in other answers', () => {
  test('model list, search, pricing, estimates, a run record and the ledger: only the nulls that mean something', async () => {
    for (const base of FORMS) {
      for (const path of ['/v1/models', '/v1/models/search', '/v1/models/search?query=tts', '/v1/models/sfxr-jump/pricing', '/v1/nodes/deprecated-models']) {
        const res = await srv.request('GET', `${base}${path}`, { key });
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.deepEqual(nulls(res.body, new Set(['nextCursor'])), [], path);
      }
      const est = await srv.request('POST', `${base}/v1/nodes/estimate-credits`, { key, body: { nodeType: 'sfxr_sound_effects', input: { seed: 1 } } });
      assert.deepEqual(nulls(est.body), []);
      const created = await srv.request('POST', `${base}/v1/nodes/sfxr_sound_effects/run`, { key, body: { input: { seed: 1 } } });
      const run = await waitForStatus(srv, key, `${base}/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED');
      // A finished run: error and userMessage are null by meaning (no failure), as hosted clients read them.
      assert.equal(run.error, null);
      assert.ok(!('errorCode' in run), 'no named failure, no errorCode');
      assert.deepEqual(nulls(run, new Set(['error', 'userMessage', 'progressMessage', 'subModelId'])), []);
      const ledger = await srv.request('GET', `${base}/v1/credits/ledger`, { key });
      assert.deepEqual(nulls(ledger.body, new Set(['nextCursor'])), []);
      const grant = ledger.body.items.find((i: { kind: string }) => i.kind === 'grant');
      assert.ok(grant && !('runId' in grant), 'a grant has no runId property');
    }
  });
});
