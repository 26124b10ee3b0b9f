import type { FieldSpec, FieldWidget, HostedFormHints, OutputSpec, PortType, WireDataType } from '../types.js';

/** One input or output field of the hosted catalog, as src/catalog/hosted/catalog.json keeps it. */
export interface HostedField extends HostedFormHints {
  zodExpectedName: string;
  type: string;
  dataType: string;
  label?: string;
  required?: boolean;
  default?: unknown;
  min?: number;
  max?: number;
  options?: Array<string | number>;
  maxItems?: number;
  minItems?: number;
  showWhen?: { field: string; op: string; value: unknown };
  /** The constraints of the property in the hosted input schema. */
  wire?: WireFacts;
  [other: string]: unknown;
}

export interface WireFacts {
  type?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  enum?: unknown[];
  itemType?: string;
}

/** Properties of a hosted field that our FieldSpec carries under its own names (everything else goes to `extra`). */
const OWN = new Set([
  'zodExpectedName', 'type', 'dataType', 'label', 'required', 'default', 'min', 'max', 'step', 'options', 'maxItems', 'minItems',
  'maxImages', 'maxAudios', 'maxFiles', 'multiple', 'accept', 'isAdvanced', 'wire',
]);

const MEDIA_URL_MAX = 2_000_000;
const URL_ITEM = { type: 'string', minLength: 1, maxLength: MEDIA_URL_MAX };
const WIRE_TYPES: WireDataType[] = ['string', 'string[]', 'number', 'boolean', 'object[]'];

/** An empty hosted default ("", [], null) is "no default" here: filling it in would satisfy a required field with nothing. */
export function isEmptyDefault(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

const list = (h: HostedField) => h.dataType === 'string[]';

/** Our widget and port type for a hosted UI kind and wire type; lists with no list widget of ours are JSON arrays. */
function kind(h: HostedField): { type: FieldWidget; dataType: PortType; schema?: Record<string, unknown> } {
  const arrayOf = (items: Record<string, unknown>) => ({ type: 'array', items });
  switch (h.type) {
    case 'slider':
    case 'number':
      return { type: h.wire?.type === 'integer' ? 'integer' : 'number', dataType: 'number' };
    case 'select':
    case 'custom-select':
    case 'composite-select':
      return { type: 'select', dataType: 'select' };
    case 'multi-select':
      return { type: 'multiselect', dataType: 'select' };
    case 'textarea':
      return { type: 'textarea', dataType: 'text' };
    case 'text':
      return { type: 'text', dataType: 'text' };
    case 'toggle':
      return { type: 'boolean', dataType: 'boolean' };
    case 'image':
      return list(h) ? { type: 'images', dataType: 'image' } : { type: 'image', dataType: 'image' };
    case 'video':
      return list(h) ? { type: 'videos', dataType: 'video' } : { type: 'video', dataType: 'video' };
    case 'audio':
      return list(h) ? { type: 'json', dataType: 'audio', schema: arrayOf(URL_ITEM) } : { type: 'audio', dataType: 'audio' };
    case 'avmedia':
      return list(h) ? { type: 'json', dataType: 'avmedia', schema: arrayOf(URL_ITEM) } : { type: 'audio', dataType: 'avmedia' };
    case 'file':
      return list(h) ? { type: 'json', dataType: 'file', schema: arrayOf(URL_ITEM) } : { type: 'text', dataType: 'file', schema: { minLength: 1, maxLength: MEDIA_URL_MAX } };
    case 'array_of_text':
      return { type: 'json', dataType: 'text', schema: arrayOf({ type: 'string' }) };
    case 'array_of_objects':
      return { type: 'json', dataType: 'any', schema: arrayOf({ type: 'object' }) };
    default:
      return { type: 'json', dataType: 'any' };
  }
}

/** Our own one-line description of a field, from its facts (the hosted help texts are not ours to copy). */
function describe(h: HostedField): string {
  const label = h.label ?? h.zodExpectedName;
  if (list(h)) return `${label}: a list of URLs`;
  if (['image', 'video', 'audio', 'avmedia', 'file'].includes(h.type)) return `${label}: an https URL, a data: URL or a file URL of this service`;
  if (h.options?.length) return `${label}: one of the listed options`;
  if (h.dataType === 'number' && (h.min !== undefined || h.max !== undefined)) return `${label}, from ${h.min ?? '…'} to ${h.max ?? '…'}`;
  return label;
}

/** The hosted `showWhen` in our form (`{ field: [values] }`) where it is an equality or membership test. */
function ourShowWhen(w: HostedField['showWhen']): Record<string, unknown[]> | undefined {
  if (!w || typeof w.field !== 'string') return undefined;
  if (w.op === 'eq') return { [w.field]: [w.value] };
  if (w.op === 'in' && Array.isArray(w.value)) return { [w.field]: w.value };
  return undefined;
}

/**
 * A hosted input field as our FieldSpec: the same wire name, required flag, options, range, default and item
 * limits, our widget and port type for validation and workflow graphs, and the hosted UI kind and wire type
 * kept as `uiType`/`wireType`. The JSON Schema (catalog/schema.ts) is derived from it and, with the hosted
 * schema's own constraints in `schema`, accepts what the hosted API accepts.
 */
export function hostedField(h: HostedField): FieldSpec {
  const k = kind(h);
  const w = h.wire ?? {};
  const schema: Record<string, unknown> = { ...(k.schema ?? {}) };
  const isText = k.type === 'text' || k.type === 'textarea';
  const isList = schema.type === 'array' || k.type === 'images' || k.type === 'videos' || k.type === 'multiselect';
  if (isText && w.minLength !== undefined) schema.minLength = w.minLength;
  if (isText && w.pattern !== undefined) schema.pattern = w.pattern;
  if (isText && h.min !== undefined && h.dataType === 'string') schema.minLength = h.min;
  // The hosted lists' item limits: its schema's, else the form's (maxItems, maxImages, maxAudios, maxFiles).
  if (isList) {
    const maxItems = w.maxItems ?? h.maxItems ?? h.maxImages ?? h.maxAudios ?? h.maxFiles;
    const minItems = w.minItems ?? h.minItems;
    if (maxItems !== undefined) schema.maxItems = maxItems;
    if (minItems !== undefined) schema.minItems = minItems;
  }
  // Numbers the hosted schema lets be null (crop_image's optional pixel box).
  if ((k.type === 'number' || k.type === 'integer') && w.nullable) schema.type = [k.type, 'null'];
  const extra: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(h)) if (!OWN.has(key) && v !== undefined) extra[key] = v;
  const showWhen = ourShowWhen(h.showWhen);
  const maxLength = isText && h.dataType === 'string' ? (h.max ?? w.maxLength) : undefined;
  const spec: FieldSpec = {
    name: h.zodExpectedName,
    type: k.type,
    dataType: k.dataType,
    required: h.required === true && !h.showWhen,
    description: describe(h),
    uiType: h.type,
    ...(WIRE_TYPES.includes(h.dataType as WireDataType) ? { wireType: h.dataType as WireDataType } : {}),
    ...(h.label !== undefined ? { label: h.label } : {}),
    ...(h.options ? { options: h.options } : {}),
    ...(!isEmptyDefault(h.default) ? { default: h.default } : {}),
    ...(showWhen ? { showWhen } : {}),
    ...(h.min !== undefined ? { min: h.min } : {}),
    ...(h.max !== undefined ? { max: h.max } : {}),
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...(h.minItems !== undefined ? { minItems: h.minItems } : {}),
    ...(h.maxItems !== undefined ? { maxItems: h.maxItems } : {}),
    ...(h.step !== undefined ? { step: h.step } : {}),
    ...(h.maxImages !== undefined ? { maxImages: h.maxImages } : {}),
    ...(h.maxAudios !== undefined ? { maxAudios: h.maxAudios } : {}),
    ...(h.maxFiles !== undefined ? { maxFiles: h.maxFiles } : {}),
    ...(h.multiple !== undefined ? { multiple: h.multiple } : {}),
    ...(h.accept !== undefined ? { accept: h.accept } : {}),
    ...(h.isAdvanced !== undefined ? { isAdvanced: h.isAdvanced } : {}),
    ...(Object.keys(schema).length ? { schema } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return spec;
}

const OUTPUT_PORT: Record<string, PortType> = { image: 'image', video: 'video', audio: 'audio', text: 'text', textarea: 'text', file: 'file' };

/** A hosted output field (`outputFieldOptions[]`) as our OutputSpec, keyed by its wire name. */
export function hostedOutput(h: HostedField): OutputSpec {
  return {
    name: h.zodExpectedName,
    dataType: OUTPUT_PORT[h.type] ?? 'any',
    uiType: h.type,
    ...(WIRE_TYPES.includes(h.dataType as WireDataType) ? { wireType: h.dataType as WireDataType } : {}),
    ...(h.label !== undefined ? { label: h.label } : {}),
  };
}

/**
 * The JSON Schema of an input the hosted schema accepts but its form does not show, from that schema's
 * facts: media-looking names take URLs (one, or a list for `…_urls`), the rest their stated type and range;
 * an unconstrained property takes anything.
 */
export function wireSchema(name: string, w: WireFacts): Record<string, unknown> {
  const s: Record<string, unknown> = { description: `${name} (accepted as the hosted API accepts it; not a form field)` };
  if (/_urls$/.test(name)) return { ...s, type: 'array', items: URL_ITEM, ...(w.maxItems !== undefined ? { maxItems: w.maxItems } : {}) };
  const t = w.type;
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean' || t === 'array') {
    s.type = w.nullable ? [t, 'null'] : t;
    if (t === 'string' && (/_url$|^mask$/.test(name))) Object.assign(s, { minLength: 1, maxLength: MEDIA_URL_MAX });
    if (w.enum) s.enum = w.enum;
    if (w.minimum !== undefined && Math.abs(w.minimum) < Number.MAX_SAFE_INTEGER) s.minimum = w.minimum;
    if (w.maximum !== undefined && Math.abs(w.maximum) < Number.MAX_SAFE_INTEGER) s.maximum = w.maximum;
    if (t === 'array' && w.itemType) s.items = { type: w.itemType };
  }
  return s;
}
