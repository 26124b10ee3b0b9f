#!/usr/bin/env node
// Distils the hosted service's catalog facts (a copy of its GET /v1/models/catalog, as shared/spec/hosted-catalog.json)
// into src/catalog/hosted/catalog.json, the data the hosted-model loader (src/catalog/hosted/load.ts) reads.
//
//   node scripts/hosted-catalog.mjs ../shared/spec/hosted-catalog.json
//
// Only facts are kept: ids, kinds, categories, provider types and provider model ids, cost rules, field names, UI
// kinds, data types, ranges, options, defaults, item limits, labels, output keys, default estimates, and the
// constraints of each input's JSON Schema property. Prose (help texts, descriptions, placeholders) and links are
// left out; our own descriptions are written by the loader.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROSE = new Set(['helpText', 'description', 'placeholder', 'redirect']);
// Input-schema properties the hosted service fills in itself (storage folders, user and asset ids, measured
// durations, the routed model): not inputs a client sends, so not inputs here.
const INTERNAL = new Set(['processId', 'folder', 'suffix', 'userId', 'modelId', 'model', 'provider', 'audioName', 'audioDuration', 'mediaDuration',
  'segmentLength', 'voiceUrl', 'clonedVoiceId', 'limit_generations', 'hedra_image_asset_id', 'ai_model_id', 'input_mode', 'fileType', 'crop']);
const SCHEMA_FACTS = ['type', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems', 'nullable'];

const src = process.argv[2];
if (!src) {
  console.error('usage: node scripts/hosted-catalog.mjs PATH/TO/hosted-catalog.json');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'src', 'catalog', 'hosted', 'catalog.json');
const hosted = JSON.parse(readFileSync(src, 'utf8'));

/** A field entry without prose, nested item/custom fields likewise. */
function fieldFacts(f) {
  const o = {};
  for (const [k, v] of Object.entries(f)) {
    if (PROSE.has(k)) continue;
    if ((k === 'itemFields' || k === 'customFields') && Array.isArray(v)) o[k] = v.map(fieldFacts);
    else o[k] = v;
  }
  return o;
}

/** The constraints of one property of the hosted input schema (its first variant that has it). */
function schemaProps(inputSchema) {
  const variants = inputSchema.variants ?? [inputSchema];
  const props = {};
  for (const v of variants) {
    for (const [name, p] of Object.entries(v.properties ?? {})) {
      if (props[name] || !p || typeof p !== 'object') continue;
      const facts = {};
      for (const k of SCHEMA_FACTS) if (p[k] !== undefined && !(k === 'maximum' && p[k] === Number.MAX_SAFE_INTEGER)) facts[k] = p[k];
      if (Array.isArray(p.enum)) facts.enum = p.enum;
      if (p.items && typeof p.items === 'object' && typeof p.items.type === 'string') facts.itemType = p.items.type;
      props[name] = facts;
    }
  }
  // Required in every variant: required whichever variant the caller picks.
  const reqSets = variants.map((v) => new Set(v.required ?? []));
  const required = [...(reqSets[0] ?? [])].filter((n) => reqSets.every((s) => s.has(n)));
  return { props, required, variants: variants.length };
}

const models = [];
for (const [id, m] of Object.entries(hosted.models)) {
  models.push({
    id,
    nodeType: m.nodeType,
    parentModelId: m.parentModelId,
    defaultSubModelId: m.defaultSubModelId,
    nodeKind: m.nodeKind,
    category: m.category,
    ...(Array.isArray(m.categories) && m.categories.length ? { categories: m.categories } : {}),
    name: m.name,
    providerType: m.providerType,
    ...(m.providerUrl ? { providerModel: m.providerUrl } : {}),
    cost: m.cost,
    outputFields: (m.outputFields ?? []).map(fieldFacts),
    subModels: m.subModels.map((s) => {
      const schema = schemaProps(s.inputSchema);
      const fieldNames = new Set(s.inputFields.map((f) => f.zodExpectedName));
      return {
        subModelId: s.subModelId,
        label: s.label,
        category: s.category,
        defaultEstimateMicrocredits: s.defaultEstimateMicrocredits,
        fields: s.inputFields.map((f) => ({ ...fieldFacts(f), ...(schema.props[f.zodExpectedName] ? { wire: schema.props[f.zodExpectedName] } : {}) })),
        // Properties the hosted input schema accepts beyond the form fields (those the service fills in itself excluded).
        schemaOnly: Object.fromEntries(Object.entries(schema.props).filter(([n]) => !fieldNames.has(n) && !INTERNAL.has(n))),
        schemaRequired: schema.required,
      };
    }),
  });
}

const data = { version: hosted.version, generatedAt: hosted.generatedAt, models };
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(data, null, 1) + '\n');
console.log(`wrote ${models.length} models, ${models.reduce((n, m) => n + m.subModels.length, 0)} sub-models to ${path.relative(process.cwd(), out)}`);
