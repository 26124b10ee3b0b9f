import { EngineInputError, type EngineContext, type FetchMediaOptions, type Media } from '../types.js';

/**
 * Reading the hosted service's input names (hosted-catalog.json `zodExpectedName`s: `audioUrl`,
 * `similarityBoost`, `podcastUrl`, …) in the adapters that translate them into a provider's own
 * parameters. Values have been validated against the mode's schema already; these only pick and coerce.
 */

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** A media field that may hold one URL or a list of them (the hosted `audioUrl` is either). */
export function firstUrl(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.map(str).find((x) => x !== undefined);
  return str(v);
}

/** Every URL of a one-or-many media field. */
export function allUrls(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).map(str).filter((x): x is string => x !== undefined);
}

/** Fetches a required media input through the guarded fetcher, naming the field when it is missing. */
export async function requiredMedia(input: Record<string, unknown>, field: string, ctx: EngineContext, accept: FetchMediaOptions['accept']): Promise<Media> {
  const url = firstUrl(input[field]);
  if (!url) throw new EngineInputError(`${field} is required`);
  return ctx.fetchMedia(url, { accept });
}

const EXT: Record<string, string> = { 'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/ogg': 'ogg', 'audio/flac': 'flac', 'audio/aac': 'aac', 'audio/mp4': 'm4a', 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm', 'video/x-matroska': 'mkv', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** A fetched file as a multipart part, named with an extension that matches its sniffed type. */
export function blobPart(m: Media, base: string): [Blob, string] {
  return [new Blob([new Uint8Array(m.bytes)], { type: m.contentType }), `${base}.${EXT[m.contentType] ?? 'bin'}`];
}

/** Leaves out undefined values, so a provider sees only what was given. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
