import type { PricingRule } from '../pricing/types.js';
import type { Category, FieldSpec, FineCategory, ModelDef, OutputSpec, PortType } from './types.js';

/**
 * The hosted service's field vocabulary (hosted-compat: catalog and schema answers), derived from our
 * FieldSpec: the widget (`type`) and workflow port type (`dataType`) give the hosted UI kind and wire
 * type, and a field's own hosted facts (`uiType`, `wireType`, label, step, item limits, `extra`) win
 * where a model carries them. Pure; absent properties stay absent (never `null`).
 */

const MEDIA_PORTS = new Set<PortType>(['image', 'video', 'audio', 'file', 'avmedia']);

/** Drops the keys whose value is undefined, so an absent property is absent in JSON. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

/**
 * A field's hosted extra facts without nulls at any depth: the capture has a few (`default: null` of a
 * nested item field), and an absent property is absent in every answer (docs/api.md).
 */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = withoutNulls(x);
    return out;
  }
  return v;
}

/** The JSON Schema `type` a json field declares (its `schema` override), if one. */
function declaredJsonType(field: FieldSpec): { type?: unknown; items?: Record<string, unknown> } {
  const s = field.schema ?? {};
  return { type: s.type, items: s.items as Record<string, unknown> | undefined };
}

function isList(field: FieldSpec): boolean {
  if (field.type === 'images' || field.type === 'videos' || field.type === 'multiselect') return true;
  const t = declaredJsonType(field).type;
  return field.type === 'json' && (t === 'array' || (Array.isArray(t) && t.includes('array')));
}

/** The hosted UI kind: image, video, audio, file, text, textarea, select, slider, number, toggle, multi-select, … */
export function hostedType(field: FieldSpec): string {
  if (field.uiType) return field.uiType;
  // Media inputs are named by their medium, one or many (the list-ness is in dataType).
  if (MEDIA_PORTS.has(field.dataType) && field.type !== 'select' && field.type !== 'multiselect') return field.dataType;
  switch (field.type) {
    case 'text':
    case 'color':
      return 'text';
    case 'textarea':
      return 'textarea';
    case 'number':
    case 'integer':
      // A bounded number is a slider on the hosted service; an unbounded one a plain number box.
      return field.min !== undefined && field.max !== undefined ? 'slider' : 'number';
    case 'boolean':
      return 'toggle';
    case 'select':
      return 'select';
    case 'multiselect':
      return 'multi-select';
    case 'image':
    case 'images':
      return 'image';
    case 'audio':
      return 'audio';
    case 'video':
    case 'videos':
      return 'video';
    case 'json': {
      if (!isList(field)) return 'json';
      return declaredJsonType(field).items?.type === 'object' ? 'array_of_objects' : 'array_of_text';
    }
  }
}

/** The hosted wire data type: `string`, `string[]` (media and other lists), `number`, `boolean`, `object[]`, … */
export function hostedDataType(field: FieldSpec): string {
  if (field.wireType) return field.wireType;
  switch (field.type) {
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'select':
      return field.options?.length && field.options.every((o) => typeof o === 'number') ? 'number' : 'string';
    case 'multiselect':
      return field.options?.length && field.options.every((o) => typeof o === 'number') ? 'number[]' : 'string[]';
    case 'images':
    case 'videos':
      return 'string[]';
    case 'json': {
      if (!isList(field)) return 'object';
      const items = declaredJsonType(field).items;
      return items?.type === 'object' ? 'object[]' : items?.type === 'number' || items?.type === 'integer' ? 'number[]' : 'string[]';
    }
    default:
      return 'string';
  }
}

/** Item limits under the hosted names: a media list's `maxImages`/`maxAudios`/`maxFiles` default to its `maxItems`. */
function itemLimits(field: FieldSpec) {
  const list = isList(field);
  const maxItems = field.maxItems ?? (list ? (field.schema?.maxItems as number | undefined) : undefined);
  const minItems = field.minItems ?? (list ? (field.schema?.minItems as number | undefined) : undefined);
  const medium = list ? field.dataType : undefined;
  return {
    minItems,
    maxItems,
    maxImages: field.maxImages ?? (medium === 'image' ? maxItems : undefined),
    maxAudios: field.maxAudios ?? (medium === 'audio' ? maxItems : undefined),
    maxFiles: field.maxFiles ?? (medium === 'file' ? maxItems : undefined),
    multiple: field.multiple ?? (list && medium !== undefined && MEDIA_PORTS.has(medium) ? true : undefined),
  };
}

/** What both forms share: the hosted facts of a field, without its name or options. */
function common(field: FieldSpec) {
  return {
    type: hostedType(field),
    dataType: hostedDataType(field),
    label: field.label ?? field.name,
    required: field.required,
    default: field.default,
    min: field.min,
    max: field.max,
    step: field.step ?? (field.type === 'integer' && field.min !== undefined && field.max !== undefined ? 1 : undefined),
    maxLength: field.maxLength,
    ...itemLimits(field),
    accept: field.accept,
    isAdvanced: field.isAdvanced,
  };
}

/**
 * A field as `GET /v1/models/{modelId}/schema` shows it: `name` is the wire name, `options` bare values,
 * hosted facts of `extra` flattened in; Atelier's own `widget`, `portType`, `showWhen` and `placeholder`
 * beside them where they exist.
 */
export function schemaField(field: FieldSpec) {
  return compact({
    ...(withoutNulls(field.extra ?? {}) as Record<string, unknown>),
    name: field.name,
    ...common(field),
    description: field.description,
    options: field.options,
    showWhen: field.showWhen,
    placeholder: field.placeholder,
    widget: field.type,
    portType: field.dataType,
  });
}

/** A field as the catalog lists it (`inputFieldOptions[]`): `zodExpectedName` is the wire name, `options` are `{ value, label }`. */
export function catalogField(field: FieldSpec) {
  return compact({
    ...(withoutNulls(field.extra ?? {}) as Record<string, unknown>),
    zodExpectedName: field.name,
    ...common(field),
    helpText: field.description,
    options: field.options?.map((value) => ({ value, label: String(value) })),
  });
}

const OUTPUT_TYPES: Record<PortType, { type: string; dataType: string }> = {
  image: { type: 'image', dataType: 'string[]' },
  video: { type: 'video', dataType: 'string[]' },
  audio: { type: 'audio', dataType: 'string[]' },
  avmedia: { type: 'avmedia', dataType: 'string[]' },
  file: { type: 'file', dataType: 'string[]' },
  text: { type: 'textarea', dataType: 'string' },
  number: { type: 'number', dataType: 'number' },
  boolean: { type: 'toggle', dataType: 'boolean' },
  select: { type: 'text', dataType: 'string' },
  any: { type: 'json', dataType: 'object' },
};

/** An output as the catalog lists it (`outputFieldOptions[]`): media outputs are lists of URLs. */
export function catalogOutput(output: OutputSpec) {
  const derived = OUTPUT_TYPES[output.dataType] ?? OUTPUT_TYPES.any;
  return compact({
    zodExpectedName: output.name,
    type: output.uiType ?? derived.type,
    dataType: output.wireType ?? derived.dataType,
    label: output.label ?? output.name,
  });
}

/** Our fine categories in the hosted category vocabulary (the hosted ones are kept as they are). */
export function hostedCategory(category: FineCategory): string {
  switch (category) {
    case 'text-generation':
    case 'multimodal-llm':
    case 'image-understanding':
      return 'llm';
    case 'image-utility':
    case 'video-utility':
    case 'audio-utility':
    case 'text-utility':
    case 'image-to-text':
      return 'utility';
    default:
      return category;
  }
}

/** The hosted `nodeKind`: image, video, audio, llm or utility, which our coarse categories already are. */
export function hostedNodeKind(category: Category): string {
  return category;
}

const COST_TYPES: Record<string, string> = { image: 'per_image', second: 'per_second', '1k_chars': 'per_character', '1k_tokens': 'per_token', megapixel: 'per_megapixel' };

/**
 * A model's cost facts: the hosted catalog's where the model carries them, else derived from the default
 * mode's pricing rule, in microcredits (the amounts charged here; the hosted rule is in its own units).
 */
export function hostedCost(model: ModelDef, rule: PricingRule): Record<string, unknown> {
  if (model.cost) return model.cost;
  if (rule.kind === 'flat') return { type: 'fixed', microcredits: rule.microcredits };
  if (rule.kind === 'hosted') return rule.cost;
  return compact({ type: COST_TYPES[rule.unit] ?? rule.unit, unit: rule.unit, microcreditsPerUnit: rule.microcreditsPerUnit, minimumMicrocredits: rule.minimum });
}
