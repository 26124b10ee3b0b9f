import { EngineError, type EngineContext, type FetchMediaOptions, type Media } from '../types.js';

/**
 * From a validated Atelier input to a provider's input object. Media inputs are fetched through
 * ctx.fetchMedia first (so the guard, size limit and type check apply, and own-file URLs that the
 * provider could not reach still work) and handed over as the adapter's `convert` says (fal and Replicate:
 * mediaHandoff.ts; data: URIs by default).
 */

export interface InputMapping {
  /** Fixed parameters of the binding (e.g. `{ output_format: "png" }`); the caller's input wins on a clash. */
  params?: Record<string, unknown>;
  /** Renames: Atelier field → provider field; null drops the field. */
  inputMap?: Record<string, string | null>;
  /** Value translations per Atelier field, e.g. `{ aspect_ratio: { "16:9": "landscape_16_9" } }`. */
  valueMap?: Record<string, Record<string, unknown>>;
  /** For models with no system-prompt input: put `system` before `prompt` instead of dropping it. */
  systemInPrompt?: boolean;
  /**
   * Provider objects built from flat fields: `{ image_size: { when: "Custom", fields: ["width", "height"] } }`
   * sends `image_size: { width, height }` when image_size is "Custom"; without `when` the object is always
   * built (from the fields given). `fields` is a list, or a map of our name → the provider's key.
   */
  objectFrom?: Record<string, { when?: unknown; fields: string[] | Record<string, string> }>;
  /** List fields whose provider parameter takes one value: the first item is sent. */
  firstOf?: string[];
}

/** Which kind of media a conventional field name holds (the catalog's field names: src/catalog/fields.ts). */
export function mediaFieldKind(name: string): FetchMediaOptions['accept'] | undefined {
  // snake_case (image_url, reference_video_urls) and the hosted catalog's camelCase (audioUrl, maskVideoUrl, uploadedImages).
  if (/(^|_)image_urls?$/.test(name) || /(^|[a-z])ImageUrls?$|^imageUrls?$|^uploadedImages$/.test(name) || name === 'mask_url') return 'image';
  if (/(^|_)audio_urls?$/.test(name) || /(^|[a-z])AudioUrls?$|^audioUrls?$/.test(name)) return 'audio';
  if (/(^|_)video_urls?$/.test(name) || /(^|[a-z])VideoUrls?$|^videoUrls?$/.test(name)) return 'video';
  return undefined;
}

export function dataUri(m: Media): string {
  return `data:${m.contentType};base64,${m.bytes.toString('base64')}`;
}

/** Fetches (and type-checks) every media field, leaving other values as they are. */
export async function resolveMediaFields(
  input: Record<string, unknown>,
  ctx: EngineContext,
  convert: (m: Media, field: string) => Promise<unknown> = async (m) => dataUri(m),
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const accept = mediaFieldKind(k);
    if (!accept || v === undefined || v === null || v === '') {
      out[k] = v;
      continue;
    }
    const one = async (u: unknown) => {
      if (typeof u !== 'string') return u;
      return convert(await ctx.fetchMedia(u, { accept }), k);
    };
    out[k] = Array.isArray(v) ? await Promise.all(v.map(one)) : await one(v);
  }
  return out;
}

/** Applies a binding's renames and fixed parameters; undefined and null values are left out. */
export function mapInput(source: Record<string, unknown>, m: InputMapping): Record<string, unknown> {
  let input = source;
  if (m.systemInPrompt && typeof source.system === 'string' && source.system) {
    const { system, ...rest } = source;
    input = { ...rest, prompt: `${system}\n\n${String(source.prompt ?? '')}` };
  }
  const out: Record<string, unknown> = { ...(m.params ?? {}) };
  const folded = new Set<string>();
  for (const [target, spec] of Object.entries(m.objectFrom ?? {})) {
    if (spec.when !== undefined && input[target] !== spec.when) {
      for (const f of Array.isArray(spec.fields) ? spec.fields : Object.keys(spec.fields)) folded.add(f);
      continue;
    }
    const pairs = Array.isArray(spec.fields) ? spec.fields.map((f) => [f, f] as const) : Object.entries(spec.fields);
    const o: Record<string, unknown> = {};
    for (const [ours, theirs] of pairs) {
      folded.add(ours);
      if (input[ours] !== undefined && input[ours] !== null) o[theirs] = input[ours];
    }
    folded.add(target);
    if (Object.keys(o).length) out[target] = o;
  }
  for (const [k, raw] of Object.entries(input)) {
    if (folded.has(k)) continue;
    const v = m.firstOf?.includes(k) && Array.isArray(raw) ? raw[0] : raw;
    if (v === undefined || v === null) continue;
    const target = m.inputMap && k in m.inputMap ? m.inputMap[k] : k;
    if (target === null || target === undefined) continue;
    const table = m.valueMap?.[k];
    const mapped = table && (typeof v === 'string' || typeof v === 'number') && String(v) in table ? table[String(v)] : v;
    if (mapped !== null) out[target] = mapped; // a value mapped to null means "leave it to the provider" (e.g. language "auto")
  }
  return out;
}

/** Reads a string option of a binding, with a clear error naming it when absent. */
export function stringOption(options: Record<string, unknown>, name: string, engine: string): string {
  const v = options[name];
  if (typeof v !== 'string' || !v) throw new EngineError(`the catalog binding of engine ${engine} is missing options.${name}`);
  return v;
}

export function mappingFrom(options: Record<string, unknown>): InputMapping {
  return {
    params: isRecord(options.params) ? options.params : undefined,
    inputMap: isRecord(options.inputMap) ? (options.inputMap as Record<string, string | null>) : undefined,
    valueMap: isRecord(options.valueMap) ? (options.valueMap as Record<string, Record<string, unknown>>) : undefined,
    systemInPrompt: options.systemInPrompt === true,
    objectFrom: isRecord(options.objectFrom) ? (options.objectFrom as InputMapping['objectFrom']) : undefined,
    firstOf: Array.isArray(options.firstOf) ? (options.firstOf as string[]) : undefined,
  };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
