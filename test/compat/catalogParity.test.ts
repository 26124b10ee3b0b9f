import { hostedDataType, hostedType } from '../../src/catalog/hostedFields.js';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import { builtinModels } from '../../src/catalog/models/index.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { inputSchema } from '../../src/catalog/schema.js';
import type { FieldSpec, ModeDef, ModelDef } from '../../src/catalog/types.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Catalog parity with the hosted service (issue 25): walks the hosted catalog as captured
 * (shared/spec/hosted-catalog.json, beside the repository) and fails on any hosted model, sub-model, input
 * field, option, range, default, required flag, type or output key that Atelier's built catalog lacks or
 * shapes differently. The only allowed differences are in test/compat/allowed-differences.json, each with
 * its reason.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const candidates = [process.env.ATELIER_HOSTED_CATALOG, path.join(root, '..', 'shared', 'spec', 'hosted-catalog.json'), path.join(root, '..', '..', 'shared', 'spec', 'hosted-catalog.json')].filter((p): p is string => Boolean(p));
const specPath = candidates.find((p) => existsSync(p));

interface HostedField { zodExpectedName: string; type: string; dataType: string; label?: string; required?: boolean; default?: unknown; options?: unknown[]; [k: string]: unknown }
interface HostedModel {
  nodeType: string; parentModelId: string; defaultSubModelId: string; nodeKind: string; providerType: string; cost: Record<string, unknown>;
  outputFields: HostedField[];
  subModels: Array<{ subModelId: string; label: string; category: string; defaultEstimateMicrocredits: number; inputFields: HostedField[] }>;
}

interface Allowed { model: string; subModel?: string; field?: string; property?: string; reason: string }
const allowed: Allowed[] = JSON.parse(readFileSync(path.join(here, 'allowed-differences.json'), 'utf8')).differences;

/** Our port type for a hosted UI kind (written here from hosted-compat.md, independently of the loader). */
const PORT: Record<string, string> = {
  image: 'image', video: 'video', audio: 'audio', avmedia: 'avmedia', file: 'file', slider: 'number', number: 'number', toggle: 'boolean',
  select: 'select', 'custom-select': 'select', 'composite-select': 'select', 'multi-select': 'select', text: 'text', textarea: 'text', array_of_text: 'text',
  array_of_objects: 'any',
};
const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const ITEM_LIMITS = ['maxItems', 'minItems', 'maxImages', 'maxAudios', 'maxFiles', 'multiple', 'accept', 'isAdvanced', 'min', 'max', 'step', 'label'] as const;

function isAllowed(problem: { model: string; subModel?: string; field?: string; property?: string }): boolean {
  return allowed.some((a) => a.model === problem.model
    && (a.subModel === undefined || a.subModel === problem.subModel)
    && (a.field === undefined || a.field === problem.field)
    && (a.property === undefined || a.property === problem.property));
}

function compareField(h: HostedField, f: FieldSpec | undefined, report: (property: string, message: string) => void): void {
  if (!f) return report('exists', 'missing');
  if (hostedType(f) !== h.type) report('type', `type ${hostedType(f)} ≠ hosted ${h.type}`);
  if (hostedDataType(f) !== h.dataType) report('dataType', `dataType ${hostedDataType(f)} ≠ hosted ${h.dataType}`);
  if (PORT[h.type] && f.dataType !== PORT[h.type]) report('port', `port type ${f.dataType} ≠ ${PORT[h.type]}`);
  if (f.required !== (h.required === true)) report('required', `required ${f.required} ≠ hosted ${h.required === true}`);
  if (!(empty(h.default) ? f.default === undefined : JSON.stringify(f.default) === JSON.stringify(h.default))) report('default', `default ${JSON.stringify(f.default)} ≠ hosted ${JSON.stringify(h.default)}`);
  if (JSON.stringify(f.options) !== JSON.stringify(h.options)) report('options', 'options differ');
  for (const k of ITEM_LIMITS) {
    if (JSON.stringify((f as unknown as Record<string, unknown>)[k]) !== JSON.stringify(h[k])) report(k, `${k} ${JSON.stringify((f as unknown as Record<string, unknown>)[k])} ≠ hosted ${JSON.stringify(h[k])}`);
  }
}

/** Values the hosted API takes or refuses for a field, checked against our JSON Schema of the mode. */
function probeValidation(mode: ModeDef, h: HostedField, report: (property: string, message: string) => void): void {
  const ajv = new Ajv({ strict: false });
  const validate = ajv.compile(inputSchema(mode, { requireRequired: false }));
  const ok = (v: unknown) => validate({ [h.zodExpectedName]: v });
  const limit = (h.maxItems ?? h.maxImages ?? h.maxAudios ?? h.maxFiles) as number | undefined;
  if (h.dataType === 'string[]' && ['image', 'video', 'audio', 'avmedia', 'file'].includes(h.type)) {
    if (!ok(['https://example.com/a'])) report('accepts', 'refuses a list of one URL');
    if (limit !== undefined && ok(Array.from({ length: limit + 1 }, (_, i) => `https://example.com/${i}`))) report('accepts', `accepts more than ${limit} items`);
    if (ok('https://example.com/a')) report('accepts', 'accepts a bare string for a list');
  }
  if (h.dataType === 'string' && ['image', 'video', 'audio', 'avmedia'].includes(h.type) && !ok('https://example.com/a')) report('accepts', 'refuses a URL');
  if (h.dataType === 'number' && !h.options) {
    if (typeof h.min === 'number' && ok(h.min - 1)) report('accepts', `accepts ${h.min - 1} below min`);
    if (typeof h.max === 'number' && ok(h.max + 1)) report('accepts', `accepts ${h.max + 1} above max`);
    if (typeof h.min === 'number' && !ok(h.min)) report('accepts', `refuses min ${h.min}`);
  }
  if (Array.isArray(h.options) && h.type !== 'multi-select') {
    for (const o of h.options) if (!ok(o)) report('accepts', `refuses option ${JSON.stringify(o)}`);
    if (ok('__not_an_option__')) report('accepts', 'accepts a value that is not an option');
  }
  if (h.type === 'toggle' && (!ok(true) || ok('yes'))) report('accepts', 'is not a boolean');
}

test('every hosted model, sub-model, field and output key is in Atelier’s catalog, shaped the same', { skip: specPath ? false : 'shared/spec/hosted-catalog.json is not beside the repository (set ATELIER_HOSTED_CATALOG)' }, () => {
  const hosted = JSON.parse(readFileSync(specPath!, 'utf8')) as { models: Record<string, HostedModel> };
  const models: ModelDef[] = builtinModels();
  // Built the way the service builds it: the Catalog refuses bad ids and compiles every schema.
  const catalog = new Catalog(models, () => ({ available: true }));
  const problems: string[] = [];
  let fields = 0;
  for (const [id, hm] of Object.entries(hosted.models)) {
    const at = { model: hm.nodeType };
    if (isAllowed(at) && allowed.find((a) => a.model === hm.nodeType && !a.subModel && !a.field)) continue;
    const m = catalog.model(hm.nodeType);
    const fail = (p: { subModel?: string; field?: string; property: string }, message: string) => {
      if (!isAllowed({ ...at, ...p })) problems.push(`${hm.nodeType}${p.subModel ? `/${p.subModel}` : ''}${p.field ? `.${p.field}` : ''} [${p.property}]: ${message}`);
    };
    if (!m) { fail({ property: 'exists' }, 'model missing'); continue; }
    if (m.defaultSubModelId !== hm.defaultSubModelId) fail({ property: 'defaultSubModelId' }, `${String(m.defaultSubModelId)} ≠ ${hm.defaultSubModelId}`);
    if ((m.parentModelId ?? m.nodeType) !== id) fail({ property: 'parentModelId' }, `${String(m.parentModelId)} ≠ ${id}`);
    if (m.category !== hm.nodeKind) fail({ property: 'nodeKind' }, `${m.category} ≠ ${hm.nodeKind}`);
    if (m.providerType !== hm.providerType) fail({ property: 'providerType' }, `${String(m.providerType)} ≠ ${hm.providerType}`);
    if (JSON.stringify(m.cost) !== JSON.stringify(hm.cost)) fail({ property: 'cost' }, 'cost rule differs');
    const ids = m.modes.map((x) => x.subModelId);
    if (JSON.stringify(ids) !== JSON.stringify(hm.subModels.map((s) => s.subModelId))) fail({ property: 'subModels' }, `${ids.join(',')} ≠ ${hm.subModels.map((s) => s.subModelId).join(',')}`);
    for (const hs of hm.subModels) {
      const mode = m.modes.find((x) => x.subModelId === hs.subModelId);
      if (!mode) { fail({ subModel: hs.subModelId, property: 'exists' }, 'sub-model missing'); continue; }
      if (mode.category !== hs.category) fail({ subModel: hs.subModelId, property: 'category' }, `${mode.category} ≠ ${hs.category}`);
      if (mode.label !== hs.label) fail({ subModel: hs.subModelId, property: 'label' }, `${mode.label} ≠ ${hs.label}`);
      if (mode.defaultEstimateMicrocredits !== hs.defaultEstimateMicrocredits) fail({ subModel: hs.subModelId, property: 'defaultEstimateMicrocredits' }, `${String(mode.defaultEstimateMicrocredits)} ≠ ${hs.defaultEstimateMicrocredits}`);
      const names = mode.fields.map((f) => f.name);
      const hostedNames = hs.inputFields.map((f) => f.zodExpectedName);
      for (const n of names) if (!hostedNames.includes(n)) fail({ subModel: hs.subModelId, field: n, property: 'extra' }, 'a field the hosted model does not have');
      for (const hf of hs.inputFields) {
        fields++;
        const report = (property: string, message: string) => fail({ subModel: hs.subModelId, field: hf.zodExpectedName, property }, message);
        const f = mode.fields.find((x) => x.name === hf.zodExpectedName);
        compareField(hf, f, report);
        if (f) probeValidation(mode, hf, report);
      }
      // Output keys: the model's outputFieldOptions, else result (media) / output (LLM), and resultMetadata for image models.
      const want = hm.outputFields.length
        ? hm.outputFields.map((o) => o.zodExpectedName)
        : hm.nodeKind === 'llm' ? ['output'] : hm.nodeKind === 'image' ? ['result', 'resultMetadata'] : ['result'];
      const got = mode.outputs.map((o) => o.name);
      if (JSON.stringify(got) !== JSON.stringify(want)) fail({ subModel: hs.subModelId, property: 'outputs' }, `${got.join(',')} ≠ ${want.join(',')}`);
    }
  }
  assert.ok(fields > 800, `walked ${fields} hosted input fields`);
  assert.deepEqual(problems, [], `${problems.length} differences from the hosted catalog:\n${problems.join('\n')}`);
});

test('every allowed difference names a hosted model and gives a reason', { skip: specPath ? false : 'no hosted catalog beside the repository' }, () => {
  const hosted = JSON.parse(readFileSync(specPath!, 'utf8')) as { models: Record<string, HostedModel> };
  const nodeTypes = new Set(Object.values(hosted.models).map((m) => m.nodeType));
  for (const a of allowed) {
    assert.ok(nodeTypes.has(a.model), `${a.model} is a hosted model`);
    assert.ok(a.reason && a.reason.length > 10, `${a.model}: a reason`);
  }
});

test('over HTTP: every hosted sub-model answers its schema with the hosted field names, and its default estimate', { skip: specPath ? false : 'no hosted catalog beside the repository' }, async () => {
  const hosted = JSON.parse(readFileSync(specPath!, 'utf8')) as { models: Record<string, HostedModel> };
  const srv = await startTestServer();
  after(() => srv.close());
  const key = (await srv.user()).key;
  const nodes: Array<{ type: string; subModelId?: string; data: Record<string, unknown>; want: number; id: string }> = [];
  for (const hm of Object.values(hosted.models)) {
    if (allowed.some((a) => a.model === hm.nodeType && !a.subModel && !a.field)) continue;
    for (const hs of hm.subModels) {
      const res = await srv.request('GET', `/v1/models/${hs.subModelId}/schema`, { key });
      assert.equal(res.status, 200, `schema of ${hs.subModelId}: ${res.text}`);
      const names = (res.body.fields as Array<{ name: string }>).map((f) => f.name);
      assert.deepEqual(names, hs.inputFields.map((f) => f.zodExpectedName), `${hs.subModelId} fields`);
      nodes.push({ type: hm.nodeType, ...(hm.subModels.length > 1 ? { subModelId: hs.subModelId } : {}), data: {}, want: hs.defaultEstimateMicrocredits, id: hs.subModelId });
    }
  }
  for (let i = 0; i < nodes.length; i += 50) {
    const batch = nodes.slice(i, i + 50);
    const res = await srv.request('POST', '/v1/workflows/estimate-credits', { key, body: { nodes: batch.map(({ type, subModelId, data }) => ({ type, ...(subModelId ? { subModelId } : {}), data })) } });
    assert.equal(res.status, 200, res.text);
    batch.forEach((n, k) => assert.equal(res.body.estimates[k].microcredits, n.want, `${n.id} default estimate`));
  }
});
