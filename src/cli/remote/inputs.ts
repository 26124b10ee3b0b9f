import { UsageError } from '../args.js';

/**
 * Turning `--input key=value` words into a JSON input object. Pure: file references (`@path`) are
 * read by the caller and handed in as {@link FileRef}s, so the coercion rules are unit-tested alone.
 */

/** What the command knows about a field, from the model's schema or the workflow's Request node. */
export interface FieldKind {
  /** JSON type: string, number, integer, boolean, array, object; undefined when not known. */
  jsonType?: string;
  /** Media kind (image, audio, video, file) when the field takes a file URL. */
  media?: boolean;
  /** Element JSON type when the field is an array. */
  itemType?: string;
}

export interface Assignment {
  key: string;
  raw: string;
}

/** Splits `key=value` at the first `=`; the value may be empty and may itself contain `=`. */
export function parseAssignment(word: string, flag: string): Assignment {
  const at = word.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag} expects KEY=VALUE, got "${word}"`);
  return { key: word.slice(0, at), raw: word.slice(at + 1) };
}

export interface FileRef {
  /** A data: URL of the file's bytes, for media fields. */
  dataUrl: string;
  /** The file's text, for text fields. */
  text: string;
}

/**
 * One value for a field. `@path` means "this file": a data: URL for media fields, the file's text
 * otherwise (`@@x` is the literal `@x`). Numbers, booleans and JSON arrays/objects are parsed by the
 * field's type; a field the command knows nothing about gets JSON when the text is valid JSON
 * (numbers, true/false, arrays) and the plain string otherwise; the server validates either way.
 */
export function coerceValue(name: string, raw: string, kind: FieldKind, file: (path: string) => FileRef): unknown {
  if (raw.startsWith('@@')) return raw.slice(1);
  if (raw.startsWith('@') && raw.length > 1) {
    const ref = file(raw.slice(1));
    return kind.media ? ref.dataUrl : ref.text;
  }
  switch (kind.jsonType) {
    case 'string':
      return raw;
    case 'number':
    case 'integer': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw new UsageError(`${name} expects a number, got "${raw}"`);
      return n;
    }
    case 'boolean': {
      const b = /^(true|yes|1|on)$/i.test(raw) ? true : /^(false|no|0|off)$/i.test(raw) ? false : undefined;
      if (b === undefined) throw new UsageError(`${name} expects true or false, got "${raw}"`);
      return b;
    }
    case 'array':
    case 'object':
      try {
        return JSON.parse(raw);
      } catch {
        if (kind.jsonType === 'array') return [coerceValue(name, raw, { jsonType: kind.itemType }, file)];
        throw new UsageError(`${name} expects a JSON object, got "${raw}"`);
      }
    default:
      try {
        const v = JSON.parse(raw);
        return typeof v === 'string' ? raw : v;
      } catch {
        return raw;
      }
  }
}

/**
 * Builds the input object. A key given twice makes an array (`--input images=@a.png --input images=@b.png`);
 * for an array field a single value is wrapped unless it was JSON already.
 */
export function buildInput(assignments: Assignment[], kinds: Record<string, FieldKind>, file: (path: string) => FileRef, flag = '--input'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const counts = new Map<string, number>();
  for (const a of assignments) counts.set(a.key, (counts.get(a.key) ?? 0) + 1);
  for (const { key, raw } of assignments) {
    const kind = kinds[key] ?? {};
    const repeated = (counts.get(key) ?? 0) > 1;
    if (repeated || kind.jsonType === 'array') {
      const element = kind.jsonType === 'array' ? { jsonType: kind.itemType, media: kind.media } : kind;
      const isJsonArray = !repeated && kind.jsonType === 'array' && raw.trim().startsWith('[');
      const v = isJsonArray ? coerceValue(`${flag} ${key}`, raw, kind, file) : coerceValue(`${flag} ${key}`, raw, element, file);
      const list = (out[key] as unknown[] | undefined) ?? [];
      out[key] = Array.isArray(v) && isJsonArray ? v : [...list, v];
    } else {
      out[key] = coerceValue(`${flag} ${key}`, raw, kind, file);
    }
  }
  return out;
}

const MEDIA_DATA_TYPES = new Set(['image', 'audio', 'video', 'file']);

/**
 * Field kinds from a model schema (`GET /v1/models/{id}/schema`): its JSON Schema plus the field list's
 * media inputs (hosted `type` image/audio/video/file, or Atelier's `portType`; older servers put the
 * medium in `dataType`).
 */
export function kindsFromModelSchema(schema: { jsonSchema?: unknown; fields?: { name: string; type?: string; dataType?: string; portType?: string }[] }): Record<string, FieldKind> {
  const props = ((schema.jsonSchema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties) ?? {};
  const out: Record<string, FieldKind> = {};
  for (const [name, p] of Object.entries(props)) {
    const items = p.items as Record<string, unknown> | undefined;
    out[name] = { jsonType: jsonTypeOf(p), itemType: items ? jsonTypeOf(items) : undefined };
  }
  for (const f of schema.fields ?? []) {
    if ([f.portType, f.type, f.dataType].some((t) => t !== undefined && MEDIA_DATA_TYPES.has(t))) out[f.name] = { ...(out[f.name] ?? {}), media: true };
  }
  return out;
}

/** Field kinds from a workflow's Request node fields (`text`, `number`, `boolean`, media, `any`), by id and by name. */
export function kindsFromRequestFields(fields: { id: string; name: string; type: string }[]): Record<string, FieldKind> {
  const out: Record<string, FieldKind> = {};
  for (const f of fields) {
    const kind: FieldKind = f.type === 'number' ? { jsonType: 'number' }
      : f.type === 'boolean' ? { jsonType: 'boolean' }
        : f.type === 'any' ? {}
          : { jsonType: 'string', media: MEDIA_DATA_TYPES.has(f.type) };
    out[f.id] = kind;
    out[f.name] = kind;
  }
  return out;
}

function jsonTypeOf(s: Record<string, unknown>): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return (s.type as string[]).find((t) => t !== 'null');
  if (Array.isArray(s.enum) && s.enum.length) return typeof s.enum[0] === 'number' ? 'number' : typeof s.enum[0];
  return undefined;
}
