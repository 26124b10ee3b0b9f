import fs from 'node:fs/promises';
import path from 'node:path';
import type { Category, EngineBinding, FieldSpec, FieldWidget, FineCategory, ModeDef, ModelDef, OutputSpec, PortType } from './types.js';
import type { OptionMultiplier, PricingRule, PricingUnit } from '../pricing/types.js';
import { f } from './fields.js';
import { commonFields } from './models/remote.js';

/**
 * Operator-defined models: `atelier.models.json` binds extra models to the remote adapters without code
 * (an Ollama model through the OpenAI-compatible adapter, a Replicate model version, a ComfyUI workflow).
 * The file is validated strictly — unknown keys are errors too, since a misspelt key silently ignored
 * would run a model differently from what the operator wrote — and every problem is reported at once,
 * each naming the entry and the field.
 *
 * Shape: { "models": [ { nodeType, name, description, category, provider?, icon?, accent?, deprecated?,
 *   modes: [ { subModelId, label, category, description?, fields, outputs?, pricing, engine, timeoutSeconds?, features? } ] } ] }
 * A field is a full field spec, the name of a standard field ("prompt", "system", "max_tokens", …), or
 * `{ "use": "<standard>", …overrides }`.
 */

export class OperatorModelsError extends Error {
  override name = 'OperatorModelsError';
  constructor(readonly file: string, readonly problems: string[]) {
    super(`${file} is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export interface OperatorModelsOptions {
  /** nodeTypes already in the catalog: an operator model may not replace a built-in one. */
  existingNodeTypes?: Iterable<string>;
  /** Engine ids a binding may name (default: the remote adapters). */
  engineIds?: readonly string[];
  /** Fail when the file is missing (the operator named it with ATELIER_MODELS_FILE); otherwise a missing file means no models. */
  required?: boolean;
}

/** Reads and validates the file; [] when it does not exist and is not required. */
export async function loadOperatorModels(file: string, opts: OperatorModelsOptions = {}): Promise<ModelDef[]> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !opts.required) return [];
    throw new OperatorModelsError(file, [`cannot read the file: ${(err as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new OperatorModelsError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  return parseOperatorModels(json, path.basename(file), opts);
}

const CATEGORIES: Category[] = ['image', 'video', 'audio', 'llm', 'utility'];
const FINE: FineCategory[] = [
  'text-to-image', 'image-to-image', 'image-to-text', 'image-understanding', 'image-utility',
  'text-to-video', 'image-to-video', 'video-to-video', 'video-utility', 'lipsync',
  'text-to-speech', 'voice-changing', 'transcription', 'music-generation', 'sound-effects', 'audio-utility', 'audio-translation',
  'text-generation', 'multimodal-llm', 'text-utility',
];
const WIDGETS: FieldWidget[] = ['text', 'textarea', 'number', 'integer', 'boolean', 'select', 'multiselect', 'image', 'images', 'audio', 'video', 'videos', 'json', 'color'];
const PORTS: PortType[] = ['text', 'image', 'video', 'audio', 'avmedia', 'file', 'number', 'boolean', 'select', 'any'];
const UNITS: PricingUnit[] = ['second', 'image', '1k_chars', '1k_tokens', 'megapixel'];
const OPENAI_OPERATIONS = ['chat', 'image', 'image-edit', 'speech', 'transcription'];
const DEFAULT_ENGINES = ['openai', 'fal', 'replicate', 'comfyui'];

/** Standard fields by name, built as the built-in remote models build them. */
const STANDARD: Record<string, () => FieldSpec> = {
  prompt: () => commonFields.prompt(),
  negative_prompt: () => commonFields.negative_prompt(),
  image_url: () => commonFields.image_url(),
  image_urls: () => commonFields.image_urls(),
  audio_url: () => commonFields.audio_url(),
  video_url: () => commonFields.video_url(),
  num_images: () => commonFields.num_images(),
  seed: () => commonFields.seed(),
  aspect_ratio: () => commonFields.aspect_ratio(),
  resolution: () => commonFields.resolution(),
  duration: () => f.duration(),
  text: () => commonFields.text(),
  system: () => commonFields.system(),
  max_tokens: () => commonFields.max_tokens(),
  temperature: () => commonFields.temperature(),
};

const FIELD_KEYS = ['name', 'type', 'dataType', 'required', 'description', 'options', 'default', 'showWhen', 'placeholder', 'min', 'max', 'maxLength', 'minItems', 'maxItems', 'schema'];
const STYLE: Record<Category, { icon: string; accent: string }> = {
  image: { icon: 'image', accent: '#7c3aed' },
  video: { icon: 'film', accent: '#db2777' },
  audio: { icon: 'audio-lines', accent: '#0891b2' },
  llm: { icon: 'message-square', accent: '#ea580c' },
  utility: { icon: 'wrench', accent: '#475569' },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Validates parsed JSON; `source` names the file in messages. Pure, for tests. */
export function parseOperatorModels(json: unknown, source: string, opts: OperatorModelsOptions = {}): ModelDef[] {
  const problems: string[] = [];
  const engines = opts.engineIds ?? DEFAULT_ENGINES;
  const existing = new Set(opts.existingNodeTypes ?? []);
  const seenTypes = new Set<string>();
  const seenModes = new Set<string>();
  const out: ModelDef[] = [];

  if (!isObj(json)) throw new OperatorModelsError(source, ['the top level must be an object: { "models": [ … ] }']);
  unknownKeys(json, ['models', 'providerModels', 'routes', '$schema', 'comment'], 'top level', problems);
  // A file may only map built-in models to served ones ("providerModels") or route them ("routes") and define none of its own.
  if (json.models === undefined && (json.providerModels !== undefined || json.routes !== undefined)) json = { ...json, models: [] };
  if (!isObj(json) || !Array.isArray(json.models)) throw new OperatorModelsError(source, [...problems, '"models" must be an array']);

  json.models.forEach((raw, i) => {
    const at = `models[${i}]${isObj(raw) && typeof raw.nodeType === 'string' ? ` ("${raw.nodeType}")` : ''}`;
    const bad = (field: string, msg: string) => problems.push(`${at}.${field}: ${msg}`);
    if (!isObj(raw)) return void problems.push(`${at}: must be an object`);
    unknownKeys(raw, ['nodeType', 'name', 'description', 'category', 'provider', 'icon', 'accent', 'deprecated', 'modes', 'comment'], at, problems);

    const nodeType = str(raw, 'nodeType', bad);
    if (nodeType !== undefined) {
      if (!SNAKE.test(nodeType)) bad('nodeType', `"${nodeType}" must be snake_case (letters, digits, single underscores)`);
      else if (existing.has(nodeType)) bad('nodeType', `"${nodeType}" is a built-in model; choose another name`);
      else if (seenTypes.has(nodeType)) bad('nodeType', `"${nodeType}" appears twice in the file`);
      seenTypes.add(nodeType);
    }
    const name = str(raw, 'name', bad);
    const description = str(raw, 'description', bad);
    const category = oneOf(raw, 'category', CATEGORIES, bad);
    const icon = str(raw, 'icon', bad, false);
    const accent = str(raw, 'accent', bad, false);
    if (accent !== undefined && !/^#[0-9a-fA-F]{6}$/.test(accent)) bad('accent', 'must be a colour like "#ea580c"');
    const provider = str(raw, 'provider', bad, false);

    let deprecated: ModelDef['deprecated'];
    if (raw.deprecated !== undefined) {
      const d = raw.deprecated;
      if (!isObj(d)) bad('deprecated', 'must be { "at": ISO date, "replacement": nodeType }');
      else {
        unknownKeys(d, ['at', 'replacement'], `${at}.deprecated`, problems);
        if (typeof d.at !== 'string' || Number.isNaN(Date.parse(d.at))) bad('deprecated.at', 'must be an ISO 8601 date');
        if (typeof d.replacement !== 'string' || !SNAKE.test(d.replacement)) bad('deprecated.replacement', 'must be the nodeType of the model that replaces it');
        if (typeof d.at === 'string' && !Number.isNaN(Date.parse(d.at)) && typeof d.replacement === 'string') deprecated = { at: new Date(d.at).toISOString(), replacement: d.replacement };
      }
    }

    const modes: ModeDef[] = [];
    if (!Array.isArray(raw.modes) || raw.modes.length === 0) bad('modes', 'must be a non-empty array of modes');
    else {
      raw.modes.forEach((m, j) => {
        const mode = parseMode(m, `${at}.modes[${j}]`, problems, engines);
        if (!mode) return;
        if (seenModes.has(mode.subModelId)) problems.push(`${at}.modes[${j}].subModelId: "${mode.subModelId}" appears twice in the file`);
        seenModes.add(mode.subModelId);
        modes.push(mode);
      });
    }
    if (nodeType && name && description && category && Array.isArray(raw.modes) && modes.length === raw.modes.length) {
      out.push({
        nodeType, name, description, category,
        icon: icon ?? STYLE[category].icon,
        accent: accent ?? STYLE[category].accent,
        provider: provider ?? modes[0]!.engine.engine,
        modes,
        ...(deprecated ? { deprecated } : {}),
      });
    }
  });

  // A replacement may be another operator model or a built-in one, never a missing one.
  for (const m of out) {
    const r = m.deprecated?.replacement;
    if (r && !seenTypes.has(r) && !existing.has(r)) problems.push(`models ("${m.nodeType}").deprecated.replacement: no model "${r}" exists`);
  }
  if (problems.length) throw new OperatorModelsError(source, problems);
  return out;
}

function parseMode(raw: unknown, at: string, problems: string[], engines: readonly string[]): ModeDef | undefined {
  const bad = (field: string, msg: string) => problems.push(`${at}.${field}: ${msg}`);
  if (!isObj(raw)) return void problems.push(`${at}: must be an object`);
  const before = problems.length;
  unknownKeys(raw, ['subModelId', 'label', 'category', 'description', 'fields', 'outputs', 'pricing', 'engine', 'timeoutSeconds', 'features', 'comment'], at, problems);
  const subModelId = str(raw, 'subModelId', bad);
  if (subModelId !== undefined && !KEBAB.test(subModelId)) bad('subModelId', `"${subModelId}" must be kebab-case (e.g. "llama-3-2-chat")`);
  const label = str(raw, 'label', bad);
  const category = oneOf(raw, 'category', FINE, bad);
  const description = str(raw, 'description', bad, false);

  const fields: FieldSpec[] = [];
  if (!Array.isArray(raw.fields)) bad('fields', 'must be an array (standard field names or field objects)');
  else raw.fields.forEach((fr, k) => {
    const fs = parseField(fr, `${at}.fields[${k}]`, problems);
    if (fs) {
      if (fields.some((x) => x.name === fs.name)) problems.push(`${at}.fields[${k}]: field "${fs.name}" appears twice`);
      fields.push(fs);
    }
  });

  let outputs: OutputSpec[] | undefined;
  if (raw.outputs === undefined) outputs = category ? defaultOutputs(category) : undefined;
  else if (!Array.isArray(raw.outputs) || raw.outputs.length === 0) bad('outputs', 'must be a non-empty array of { "name", "dataType" }');
  else {
    outputs = [];
    raw.outputs.forEach((o, k) => {
      if (!isObj(o) || typeof o.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(o.name) || !PORTS.includes(o.dataType as PortType)) {
        problems.push(`${at}.outputs[${k}]: must be { "name": snake_case, "dataType": one of ${PORTS.join(', ')} }`);
      } else {
        unknownKeys(o, ['name', 'dataType'], `${at}.outputs[${k}]`, problems);
        outputs!.push({ name: o.name, dataType: o.dataType as PortType });
      }
    });
  }

  const pricing = parsePricing(raw.pricing, `${at}.pricing`, problems, fields);
  const engine = parseEngine(raw.engine, `${at}.engine`, problems, engines);
  let timeoutSeconds: number | undefined;
  if (raw.timeoutSeconds !== undefined) {
    if (!Number.isInteger(raw.timeoutSeconds) || (raw.timeoutSeconds as number) < 1 || (raw.timeoutSeconds as number) > 86_400) bad('timeoutSeconds', 'must be an integer from 1 to 86400');
    else timeoutSeconds = raw.timeoutSeconds as number;
  }
  let features: string[] | undefined;
  if (raw.features !== undefined) {
    if (!Array.isArray(raw.features) || !raw.features.every((x) => typeof x === 'string')) bad('features', 'must be an array of strings');
    else features = raw.features as string[];
  }
  if (problems.length > before || !subModelId || !label || !category || !outputs || !pricing || !engine) return undefined;
  return { subModelId, label, category, fields, outputs, pricing, engine, ...(description ? { description } : {}), ...(timeoutSeconds ? { timeoutSeconds } : {}), ...(features ? { features } : {}) };
}

function defaultOutputs(category: FineCategory): OutputSpec[] {
  if (['text-generation', 'multimodal-llm', 'transcription', 'image-to-text', 'image-understanding', 'text-utility'].includes(category)) return [{ name: 'output', dataType: 'text' }];
  if (category.includes('video') || category === 'lipsync') return [{ name: 'result', dataType: 'video' }];
  if (category.includes('image')) return [{ name: 'result', dataType: 'image' }];
  return [{ name: 'result', dataType: 'audio' }];
}

function parseField(raw: unknown, at: string, problems: string[]): FieldSpec | undefined {
  if (typeof raw === 'string') {
    const make = STANDARD[raw];
    if (!make) return void problems.push(`${at}: unknown standard field "${raw}" (one of ${Object.keys(STANDARD).join(', ')}), or give a field object`);
    return make();
  }
  if (!isObj(raw)) return void problems.push(`${at}: must be a standard field name or a field object`);
  let base: Partial<FieldSpec> = {};
  const overrides: Obj = { ...raw };
  if (raw.use !== undefined) {
    const make = typeof raw.use === 'string' ? STANDARD[raw.use] : undefined;
    if (!make) return void problems.push(`${at}.use: unknown standard field "${String(raw.use)}" (one of ${Object.keys(STANDARD).join(', ')})`);
    base = make();
    delete overrides.use;
    if ('name' in overrides || 'type' in overrides || 'dataType' in overrides) return void problems.push(`${at}: a "use" field keeps its name, type and dataType; override only the other keys`);
  }
  const before = problems.length;
  unknownKeys(overrides, FIELD_KEYS, at, problems);
  const spec = { required: false, ...base, ...overrides } as Obj;
  const bad = (k: string, msg: string) => problems.push(`${at}.${k}: ${msg}`);
  if (typeof spec.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(spec.name)) bad('name', 'must be snake_case');
  if (!WIDGETS.includes(spec.type as FieldWidget)) bad('type', `must be one of ${WIDGETS.join(', ')}`);
  if (!PORTS.includes(spec.dataType as PortType)) bad('dataType', `must be one of ${PORTS.join(', ')}`);
  if (typeof spec.description !== 'string' || !spec.description) bad('description', 'is required (shown to users)');
  if (typeof spec.required !== 'boolean') bad('required', 'must be true or false');
  for (const k of ['min', 'max']) if (spec[k] !== undefined && typeof spec[k] !== 'number') bad(k, 'must be a number');
  for (const k of ['maxLength', 'minItems', 'maxItems']) if (spec[k] !== undefined && !(Number.isInteger(spec[k]) && (spec[k] as number) >= 0)) bad(k, 'must be a non-negative integer');
  if (typeof spec.min === 'number' && typeof spec.max === 'number' && spec.min > spec.max) bad('min', 'is greater than max');
  if (spec.placeholder !== undefined && typeof spec.placeholder !== 'string') bad('placeholder', 'must be a string');
  if (spec.schema !== undefined && !isObj(spec.schema)) bad('schema', 'must be an object (extra JSON Schema keywords)');
  if (spec.showWhen !== undefined && !(isObj(spec.showWhen) && Object.values(spec.showWhen).every(Array.isArray))) bad('showWhen', 'must map a field name to a list of values');
  if (spec.type === 'select' || spec.type === 'multiselect') {
    const o = spec.options;
    if (!Array.isArray(o) || o.length === 0 || !o.every((x) => typeof x === 'string' || typeof x === 'number')) bad('options', 'a select needs a non-empty list of strings or numbers');
    else if (spec.type === 'select' && spec.default !== undefined && !o.includes(spec.default as string)) bad('default', `must be one of the options (${o.join(', ')})`);
    else if (spec.type === 'select' && spec.default === undefined) spec.default = o[0];
  } else if (spec.options !== undefined) bad('options', 'only select and multiselect fields have options');
  if (spec.default !== undefined && (spec.type === 'number' || spec.type === 'integer')) {
    if (typeof spec.default !== 'number' || (spec.type === 'integer' && !Number.isInteger(spec.default))) bad('default', `must be ${spec.type === 'integer' ? 'an integer' : 'a number'}`);
    else if ((typeof spec.min === 'number' && spec.default < spec.min) || (typeof spec.max === 'number' && spec.default > spec.max)) bad('default', 'is outside min..max');
  }
  if (spec.default !== undefined && spec.type === 'boolean' && typeof spec.default !== 'boolean') bad('default', 'must be true or false');
  return problems.length > before ? undefined : (spec as unknown as FieldSpec);
}

export function parsePricing(raw: unknown, at: string, problems: string[], fields: FieldSpec[]): PricingRule | undefined {
  const before = problems.length;
  const bad = (k: string, msg: string) => problems.push(`${at}${k ? `.${k}` : ''}: ${msg}`);
  if (!isObj(raw)) return void bad('', 'is required: { "kind": "flat", "microcredits" } or { "kind": "per_unit", "unit", "microcreditsPerUnit", … }');
  const count = (k: string, required: boolean) => {
    const v = raw[k];
    if (v === undefined) {
      if (required) bad(k, 'is required');
      return undefined;
    }
    if (!Number.isSafeInteger(v) || (v as number) < 0) bad(k, 'must be a non-negative integer (microcredits are whole numbers)');
    return v as number;
  };
  const multipliers = parseMultipliers(raw.multipliers, `${at}.multipliers`, problems, fields);
  let rule: PricingRule | undefined;
  if (raw.kind === 'flat') {
    unknownKeys(raw, ['kind', 'microcredits', 'multipliers'], at, problems);
    const microcredits = count('microcredits', true);
    if (microcredits !== undefined) rule = { kind: 'flat', microcredits, ...(multipliers ? { multipliers } : {}) };
  } else if (raw.kind === 'per_unit') {
    unknownKeys(raw, ['kind', 'unit', 'microcreditsPerUnit', 'inputField', 'defaultQuantity', 'minimum', 'multipliers'], at, problems);
    if (!UNITS.includes(raw.unit as PricingUnit)) bad('unit', `must be one of ${UNITS.join(', ')}`);
    const per = count('microcreditsPerUnit', true);
    const minimum = count('minimum', false);
    if (raw.defaultQuantity !== undefined && !(typeof raw.defaultQuantity === 'number' && raw.defaultQuantity >= 0)) bad('defaultQuantity', 'must be a non-negative number');
    if (raw.inputField !== undefined && (typeof raw.inputField !== 'string' || !fields.some((x) => x.name === raw.inputField))) {
      bad('inputField', `must name one of this mode's fields (${fields.map((x) => x.name).join(', ') || 'none'})`);
    }
    if (per !== undefined && UNITS.includes(raw.unit as PricingUnit)) {
      rule = {
        kind: 'per_unit', unit: raw.unit as PricingUnit, microcreditsPerUnit: per,
        ...(typeof raw.inputField === 'string' ? { inputField: raw.inputField } : {}),
        ...(typeof raw.defaultQuantity === 'number' ? { defaultQuantity: raw.defaultQuantity } : {}),
        ...(minimum !== undefined ? { minimum } : {}),
        ...(multipliers ? { multipliers } : {}),
      };
    }
  } else bad('kind', 'must be "flat" or "per_unit"');
  return problems.length > before ? undefined : rule;
}

function parseMultipliers(raw: unknown, at: string, problems: string[], fields: FieldSpec[]): OptionMultiplier[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) return void problems.push(`${at}: must be an array of { "field", "basisPoints" }`);
  return raw.flatMap((m, k): OptionMultiplier[] => {
    const here = `${at}[${k}]`;
    if (!isObj(m) || typeof m.field !== 'string' || !isObj(m.basisPoints)) {
      problems.push(`${here}: must be { "field": a select field, "basisPoints": { option: 10000 = ×1 } }`);
      return [];
    }
    unknownKeys(m, ['field', 'basisPoints'], here, problems);
    const field = fields.find((x) => x.name === m.field);
    if (!field || field.type !== 'select') {
      problems.push(`${here}.field: "${m.field}" is not a select field of this mode`);
      return [];
    }
    const bp = m.basisPoints as Obj;
    for (const [opt, v] of Object.entries(bp)) if (!Number.isSafeInteger(v) || (v as number) < 0) problems.push(`${here}.basisPoints.${opt}: must be a non-negative integer`);
    for (const opt of field.options ?? []) if (!(String(opt) in bp)) problems.push(`${here}.basisPoints: option "${opt}" of ${m.field} has no multiplier`);
    return [{ field: m.field, basisPoints: bp as Record<string, number> }];
  });
}

export function parseEngine(raw: unknown, at: string, problems: string[], engines: readonly string[]): EngineBinding | undefined {
  const before = problems.length;
  if (!isObj(raw)) return void problems.push(`${at}: is required: { "engine": one of ${engines.join(', ')}, "options": { … } }`);
  unknownKeys(raw, ['engine', 'options'], at, problems);
  if (typeof raw.engine !== 'string' || !engines.includes(raw.engine)) return void problems.push(`${at}.engine: must be one of ${engines.join(', ')}`);
  const o = raw.options ?? {};
  if (!isObj(o)) return void problems.push(`${at}.options: must be an object`);
  const need = (k: string, what: string) => (typeof o[k] === 'string' && o[k] ? true : (problems.push(`${at}.options.${k}: ${what}`), false));
  switch (raw.engine) {
    case 'openai':
    case 'openrouter':
      need('model', 'the model name the server knows (e.g. "llama3.2" on Ollama)');
      if (o.operation !== undefined && !OPENAI_OPERATIONS.includes(o.operation as string)) problems.push(`${at}.options.operation: must be one of ${OPENAI_OPERATIONS.join(', ')}`);
      if (o.baseUrl !== undefined && !(typeof o.baseUrl === 'string' && /^https?:\/\/[^/]/.test(o.baseUrl))) problems.push(`${at}.options.baseUrl: must be an http(s) URL of an OpenAI-compatible API (e.g. "http://127.0.0.1:11434/v1")`);
      break;
    case 'fal':
      need('model', 'the fal endpoint id (e.g. "fal-ai/flux/dev")');
      break;
    case 'replicate':
      if (!(typeof o.model === 'string' && o.model) && !(typeof o.version === 'string' && o.version)) problems.push(`${at}.options: needs "version" (a model version id) or "model" ("owner/name")`);
      if (typeof o.model === 'string' && o.model && !/^[\w.-]+\/[\w.-]+$/.test(o.model)) problems.push(`${at}.options.model: must be "owner/name"`);
      if (typeof o.version === 'string' && o.version && !/^([\w.-]+\/[\w.-]+:)?[0-9a-f]{64}$/.test(o.version)) problems.push(`${at}.options.version: must be a 64-hex version id, optionally as "owner/name:<id>"`);
      break;
    case 'comfyui':
      if (!isObj(o.workflow) || Object.keys(o.workflow).length === 0) problems.push(`${at}.options.workflow: must be a ComfyUI prompt graph in API format (export with "Save (API)")`);
      break;
  }
  for (const k of ['params', 'inputMap', 'valueMap', 'defaults']) if (o[k] !== undefined && !isObj(o[k])) problems.push(`${at}.options.${k}: must be an object`);
  return problems.length > before ? undefined : { engine: raw.engine, options: o };
}

function unknownKeys(o: Obj, allowed: string[], at: string, problems: string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) problems.push(`${at}: unknown key "${k}" (allowed: ${allowed.filter((a) => a !== 'comment').join(', ')})`);
}

function str(o: Obj, k: string, bad: (k: string, m: string) => void, required = true): string | undefined {
  const v = o[k];
  if (v === undefined) {
    if (required) bad(k, 'is required');
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) {
    bad(k, 'must be a non-empty string');
    return undefined;
  }
  return v;
}

function oneOf<T extends string>(o: Obj, k: string, allowed: readonly T[], bad: (k: string, m: string) => void): T | undefined {
  const v = o[k];
  if (!allowed.includes(v as T)) {
    bad(k, v === undefined ? `is required (one of ${allowed.join(', ')})` : `"${String(v)}" is not one of ${allowed.join(', ')}`);
    return undefined;
  }
  return v as T;
}

/**
 * `providerModels` in atelier.models.json: which model the operator's server serves for a catalog model,
 * e.g. { "gpt_5_4": "llama3.2:3b" } when OPENAI_BASE_URL points at an Ollama. Keys are built-in
 * nodeTypes or subModelIds bound to an adapter that names provider models (openai, fal, replicate);
 * values are the provider's model names. A mapped binding sends that name, and its availability is
 * checked against the server's own model list.
 */
export async function loadProviderModelMap(file: string, builtin: readonly ModelDef[]): Promise<Map<string, string>> {
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return new Map(); // a missing file means no map; a malformed one was already reported by loadOperatorModels
  }
  return parseProviderModelMap(json, path.basename(file), builtin);
}

export function parseProviderModelMap(json: unknown, source: string, builtin: readonly ModelDef[]): Map<string, string> {
  const map = new Map<string, string>();
  if (!isObj(json) || json.providerModels === undefined) return map;
  const problems: string[] = [];
  if (!isObj(json.providerModels)) throw new OperatorModelsError(source, ['providerModels: must be an object of { "<nodeType or subModelId>": "<served model name>" }']);
  const named = new Map<string, ModeDef[]>();
  for (const m of builtin) {
    const mapped = m.modes.filter((mode) => typeof mode.engine.options?.model === 'string');
    if (mapped.length) named.set(m.nodeType, mapped);
    for (const mode of mapped) named.set(mode.subModelId, [mode]);
  }
  for (const [key, value] of Object.entries(json.providerModels)) {
    if (!named.has(key)) problems.push(`providerModels.${key}: not a built-in remote model or sub-model that names a provider model`);
    else if (typeof value !== 'string' || value.trim() === '' || value.length > 200) problems.push(`providerModels.${key}: must be the served model's name (1–200 characters)`);
    else map.set(key, value.trim());
  }
  if (problems.length) throw new OperatorModelsError(source, problems);
  return map;
}

/** Built-in models with their bindings pointed at the operator's served models (a mode's own key wins over its nodeType's). */
export function applyProviderModelMap(models: ModelDef[], map: Map<string, string>): ModelDef[] {
  if (map.size === 0) return models;
  return models.map((m) => {
    if (!m.modes.some((mode) => map.has(mode.subModelId) || map.has(m.nodeType))) return m;
    return {
      ...m,
      modes: m.modes.map((mode) => {
        const served = map.get(mode.subModelId) ?? map.get(m.nodeType);
        if (served === undefined || typeof mode.engine.options?.model !== 'string') return mode;
        return { ...mode, engine: { ...mode.engine, options: { ...mode.engine.options, model: served } } };
      }),
    };
  });
}
