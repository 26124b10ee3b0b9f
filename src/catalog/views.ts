import { priceMicrocredits, summarize } from '../pricing/price.js';
import type { PricingRule } from '../pricing/types.js';
import { isMultiMode, type Catalog, type ResolvedMode } from './catalog.js';
import { CATEGORY_LABELS, CATEGORY_ROLES } from './roles.js';
import { inputSchema } from './schema.js';
import type { ModelDef } from './types.js';
import { modeEngineKind, modelEngineKind } from './engineKinds.js';

/** Pure shaping of catalog data into the API's response bodies (api-decisions.md, "Models"). */

export function modelEntry(catalog: Catalog, model: ModelDef) {
  const a = catalog.modelAvailability(model);
  return {
    nodeType: model.nodeType,
    name: model.name,
    description: model.description,
    category: model.category,
    icon: model.icon,
    accent: model.accent,
    ...(isMultiMode(model)
      ? {
          subModels: model.modes.map((m) => {
            const ma = catalog.availability(model, m);
            return { subModelId: m.subModelId, label: m.label, category: m.category, engine: modeEngineKind(m), available: ma.available, ...(ma.available ? {} : { unavailableReason: ma.reason ?? 'unavailable' }) };
          }),
        }
      : {}),
    available: a.available,
    ...(a.available ? {} : { unavailableReason: a.reason ?? 'unavailable' }),
    provider: model.provider,
    engine: modelEngineKind(model),
    ...(model.deprecated ? { deprecated: true, replacement: model.deprecated.replacement } : {}),
  };
}

export function schemaView(catalog: Catalog, r: ResolvedMode) {
  const { model, mode } = r;
  return {
    modelId: r.subModelId ?? model.nodeType,
    nodeType: model.nodeType,
    subModelId: r.subModelId,
    name: isMultiMode(model) ? `${model.name} — ${mode.label}` : model.name,
    category: mode.category,
    description: mode.description ?? model.description,
    features: mode.features ?? [],
    capabilities: { role: CATEGORY_ROLES[mode.category], provider: model.provider, engine: modeEngineKind(mode), available: catalog.availability(model, mode).available, timeoutSeconds: mode.timeoutSeconds ?? null },
    fields: mode.fields.map((f) => ({
      name: f.name,
      type: f.type,
      dataType: f.dataType,
      required: f.required,
      options: f.options ?? null,
      default: f.default ?? null,
      description: f.description,
      showWhen: f.showWhen ?? null,
      placeholder: f.placeholder ?? null,
      min: f.min ?? null,
      max: f.max ?? null,
      maxLength: f.maxLength ?? null,
    })),
    defaults: catalog.defaults(mode),
    outputs: mode.outputs,
    jsonSchema: inputSchema(mode),
  };
}

/** Example inputs that show how the rule moves: the defaults, then the quantity and each option varied. */
function exampleInputs(rule: PricingRule, defaults: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ ...defaults }];
  if (rule.kind === 'per_unit') {
    switch (rule.unit) {
      case 'image': out.push({ ...defaults, [rule.inputField ?? 'num_images']: 4 }); break;
      case 'second': out.push({ ...defaults, [rule.inputField ?? 'duration']: 10 }); break;
      case '1k_chars': out.push({ ...defaults, [rule.inputField ?? 'text']: 'x'.repeat(1000) }); break;
      case '1k_tokens': out.push({ ...defaults, [rule.inputField ?? 'prompt']: 'x'.repeat(2000), max_tokens: 1000 }); break;
      case 'megapixel': out.push({ ...defaults, scale: 4 }); break;
    }
  }
  for (const m of rule.multipliers ?? []) {
    for (const value of Object.keys(m.basisPoints)) {
      if (defaults[m.field] !== value) out.push({ ...defaults, [m.field]: value });
    }
  }
  return out.slice(0, 6);
}

/** Example inputs are shown without long filler text, which says only how long it is. */
function displayInput(input: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) shown[k] = typeof v === 'string' && v.length > 100 ? `<${v.length} characters>` : v;
  return shown;
}

export function pricingView(catalog: Catalog, r: ResolvedMode) {
  const rule = r.mode.pricing;
  const defaults = catalog.defaults(r.mode);
  return {
    modelId: r.subModelId ?? r.model.nodeType,
    nodeType: r.model.nodeType,
    subModelId: r.subModelId,
    unit: rule.kind === 'flat' ? 'run' : rule.unit,
    rule,
    summary: summarize(rule),
    examples: exampleInputs(rule, defaults).map((input) => ({ input: displayInput(input), microcredits: priceMicrocredits(rule, input) })),
  };
}

export function catalogView(catalog: Catalog) {
  const live = catalog.models.filter((m) => !m.deprecated);
  const categories = Object.keys(CATEGORY_LABELS).map((category) => ({
    category,
    label: CATEGORY_LABELS[category]!,
    models: live.filter((m) => m.category === category).map((m) => ({
      ...modelEntry(catalog, m),
      pricing: m.modes.map((mode) => ({ subModelId: isMultiMode(m) ? mode.subModelId : null, summary: summarize(mode.pricing) })),
      roles: [...new Set(m.modes.map((mode) => CATEGORY_ROLES[mode.category]))],
    })),
  })).filter((c) => c.models.length > 0);
  return { total: live.length, categories };
}
