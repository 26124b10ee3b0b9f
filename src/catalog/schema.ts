import type { FieldSpec, ModeDef } from './types.js';

type JsonSchema = Record<string, unknown>;

const MEDIA_URL_MAX = 2_000_000; // data: URLs of small media fit; larger media go by https or file URL

function fieldSchema(field: FieldSpec): JsonSchema {
  const s: JsonSchema = { description: field.description, 'x-dataType': field.dataType };
  switch (field.type) {
    case 'text':
    case 'textarea':
    case 'color':
      Object.assign(s, { type: 'string' }, field.maxLength !== undefined ? { maxLength: field.maxLength } : {});
      break;
    case 'integer':
    case 'number':
      s.type = field.type;
      if (field.min !== undefined) s.minimum = field.min;
      if (field.max !== undefined) s.maximum = field.max;
      break;
    case 'boolean':
      s.type = 'boolean';
      break;
    case 'select':
      s.enum = field.options ?? [];
      break;
    case 'multiselect':
      Object.assign(s, { type: 'array', items: { enum: field.options ?? [] }, uniqueItems: true });
      break;
    case 'image':
    case 'audio':
    case 'video':
      Object.assign(s, { type: 'string', minLength: 1, maxLength: MEDIA_URL_MAX });
      break;
    case 'images':
    case 'videos':
      Object.assign(s, { type: 'array', items: { type: 'string', minLength: 1, maxLength: MEDIA_URL_MAX } });
      break;
    case 'json':
      break;
  }
  if (s.type === 'array') {
    if (field.minItems !== undefined) s.minItems = field.minItems;
    if (field.maxItems !== undefined) s.maxItems = field.maxItems;
  }
  if (field.default !== undefined) s.default = field.default;
  Object.assign(s, field.schema ?? {});
  return s;
}

/**
 * The draft 2020-12 JSON Schema a mode's input is validated with, derived from its fields so the two can
 * never disagree. Unknown keys are refused: a misspelt option is an error, not a silent default.
 */
/**
 * The wire fields a hosted composite select carries beside it (`image_size: "Custom"` with `width` and
 * `height`, hosted-compat.md): ordinary inputs of the model, without defaults (they apply only to "Custom").
 */
function customFieldSchemas(field: FieldSpec): Record<string, JsonSchema> {
  const custom = field.extra?.customFields;
  if (!Array.isArray(custom)) return {};
  const out: Record<string, JsonSchema> = {};
  for (const c of custom as Array<Record<string, unknown>>) {
    if (typeof c.zodExpectedName !== 'string') continue;
    const s: JsonSchema = c.dataType === 'number' ? { type: 'number' } : { type: 'string' };
    if (typeof c.min === 'number') s.minimum = c.min;
    if (typeof c.max === 'number') s.maximum = c.max;
    out[c.zodExpectedName] = { description: `${String(c.label ?? c.zodExpectedName)} (with ${field.name} "${String(field.extra?.customValue ?? 'Custom')}")`, ...s };
  }
  return out;
}

export function inputSchema(mode: ModeDef, opts: { requireRequired?: boolean } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of mode.fields) {
    for (const [name, s] of Object.entries(customFieldSchemas(field))) if (!mode.fields.some((f) => f.name === name)) properties[name] = s;
    properties[field.name] = fieldSchema(field);
  }
  for (const [name, s] of Object.entries(mode.extraInputs ?? {})) if (!(name in properties)) properties[name] = s;
  const required = mode.fields.filter((x) => x.required).map((x) => x.name);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties,
    ...(opts.requireRequired !== false && required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** Field defaults, keyed by field name. */
export function defaultsOf(mode: ModeDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of mode.fields) if (field.default !== undefined) out[field.name] = field.default;
  return out;
}
