import { priceMicrocredits, summarize } from '../pricing/price.js';
import type { PricingRule } from '../pricing/types.js';
import { defaultMode, isMultiMode, type Catalog, type ResolvedMode } from './catalog.js';
import { catalogField, catalogOutput, compact, hostedCategory, hostedCost, hostedNodeKind, schemaField } from './hostedFields.js';
import { CATEGORY_ROLES } from './roles.js';
import { inputSchema } from './schema.js';
import type { ModeDef, ModelDef } from './types.js';
import { modeEngineKind, modelEngineKind } from './engineKinds.js';
import { holdPriceMicrocredits } from './routes.js';

/**
 * Pure shaping of catalog data into the API's response bodies (docs/api.md, "Models"), in the hosted
 * service's vocabulary where it has one (hostedFields.ts). Absent properties are absent, never `null`.
 */

/** Hosted catalog facts of a model shown in every model answer (absent when the model has none). */
function hostedModelFacts(model: ModelDef) {
  return compact({
    defaultSubModelId: defaultMode(model).subModelId,
    parentModelId: model.parentModelId,
    providerType: model.providerType,
    providerLabel: model.providerLabel,
  });
}

export function modelEntry(catalog: Catalog, model: ModelDef) {
  const a = catalog.modelAvailability(model);
  return {
    nodeType: model.nodeType,
    ...hostedModelFacts(model),
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
    // null for a single-mode model, as in run records (there is no mode to choose); defaultSubModelId names its mode.
    subModelId: r.subModelId,
    ...hostedModelFacts(model),
    name: isMultiMode(model) ? `${model.name} — ${mode.label}` : model.name,
    category: mode.category,
    description: mode.description ?? model.description,
    features: mode.features ?? [],
    capabilities: compact({ role: CATEGORY_ROLES[mode.category], provider: model.provider, engine: modeEngineKind(mode), available: catalog.availability(model, mode).available, timeoutSeconds: mode.timeoutSeconds }),
    fields: mode.fields.map(schemaField),
    defaults: catalog.defaults(mode),
    outputs: mode.outputs.map((o) => compact({ name: o.name, dataType: o.dataType, label: o.label })),
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
    ...hostedModelFacts(r.model),
    unit: rule.kind === 'flat' ? 'run' : rule.unit,
    rule,
    summary: summarize(rule),
    examples: exampleInputs(rule, defaults).map((input) => ({ input: displayInput(input), microcredits: priceMicrocredits(rule, input) })),
  };
}

/** Labels of the providers our models name, where the model carries no hosted `providerLabel`. */
const PROVIDER_LABELS: Record<string, string> = { local: 'Atelier', openai: 'OpenAI', fal: 'fal', replicate: 'Replicate', comfyui: 'ComfyUI' };

/** A mode's price for its defaults; the hosted catalog's figure when ours cannot be computed without an input. */
function defaultEstimate(catalog: Catalog, mode: ModeDef): number | undefined {
  try {
    // A routed mode (catalog/routes.ts) is estimated at what a run holds: its dearest route.
    return holdPriceMicrocredits(mode, catalog.defaults(mode));
  } catch {
    return mode.defaultEstimateMicrocredits;
  }
}

/**
 * The public catalog in the hosted shape (hosted-compat: `{ version: 1, generatedAt, models }`), keyed by
 * the hosted parentModelId (our nodeType where the model has none). Field entries are in the catalog form
 * (hostedFields.ts); Atelier's `available`, `unavailableReason`, `engine` and `provider` ride along.
 * Retired models are left out (GET /v1/models/deprecated lists them).
 */
export function catalogView(catalog: Catalog, generatedAt: string) {
  const models: Record<string, unknown> = {};
  for (const model of catalog.models) {
    if (model.deprecated) continue;
    const main = defaultMode(model);
    const a = catalog.modelAvailability(model);
    const key = model.parentModelId ?? model.nodeType;
    models[key] = compact({
      parentModelId: key,
      defaultSubModelId: main.subModelId,
      nodeKind: hostedNodeKind(model.category),
      nodeType: model.nodeType,
      name: model.name,
      description: model.description,
      icon: model.icon,
      accent: model.accent,
      category: hostedCategory(main.category),
      // Models this server runs itself are `internal`, as the hosted service calls its own utilities.
      providerType: model.providerType ?? (model.provider === 'local' ? 'internal' : model.provider),
      providerLabel: model.providerLabel ?? PROVIDER_LABELS[model.provider] ?? model.provider,
      cost: hostedCost(model, main.pricing),
      estimateDescription: summarize(main.pricing),
      inputFieldOptions: main.fields.map(catalogField),
      outputFieldOptions: main.outputs.map(catalogOutput),
      subModels: model.modes.map((mode) => {
        const ma = catalog.availability(model, mode);
        return compact({
          subModelId: mode.subModelId,
          label: mode.label,
          category: hostedCategory(mode.category),
          inputFieldOptions: mode.fields.map(catalogField),
          outputFieldOptions: mode.outputs.map(catalogOutput),
          inputSchema: inputSchema(mode),
          defaultEstimateMicrocredits: defaultEstimate(catalog, mode),
          estimateDescription: summarize(mode.pricing),
          engine: modeEngineKind(mode),
          available: ma.available,
          unavailableReason: ma.available ? undefined : ma.reason ?? 'unavailable',
        });
      }),
      available: a.available,
      unavailableReason: a.available ? undefined : a.reason ?? 'unavailable',
      engine: modelEngineKind(model),
      provider: model.provider,
    });
  }
  return { version: 1 as const, generatedAt, models };
}
