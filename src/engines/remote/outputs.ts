import { describeUrl, guardedFetch, OutboundError } from '../../net/urlGuard.js';
import { decodeDataUrl, sniffContentType } from '../media.js';
import { EngineError, type FileOutput } from '../types.js';
import { abortReason } from './signals.js';
import { providerRequest } from '../../tracing/tracing.js';
import type { ResolvedCommon } from './settings.js';

/**
 * Output files of remote jobs. Providers answer with URLs (their CDN) or inline data; either way the
 * bytes are fetched here, through the outbound guard (a provider's answer is not trusted to point only
 * at public hosts), and typed by sniffing.
 */

const EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/bmp': 'bmp', 'image/tiff': 'tiff',
  'image/avif': 'avif', 'image/heic': 'heic', 'audio/wav': 'wav', 'audio/mpeg': 'mp3', 'audio/ogg': 'ogg', 'audio/flac': 'flac',
  'audio/aac': 'aac', 'audio/mp4': 'm4a', 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm',
  'video/x-matroska': 'mkv', 'video/x-msvideo': 'avi', 'video/ogg': 'ogv',
};

export function fileOutput(data: Buffer, base: string, extra: Partial<FileOutput> = {}): FileOutput {
  const contentType = sniffContentType(data);
  const ext = EXT[contentType] ?? 'bin';
  return { kind: 'file', data, contentType, filename: `${base}.${ext}`, ...extra };
}

export async function downloadOutput(url: string, common: ResolvedCommon, signal: AbortSignal, label: string): Promise<Buffer> {
  if (url.startsWith('data:')) {
    try {
      return decodeDataUrl(url, common.downloadMaxBytes);
    } catch (err) {
      throw new EngineError(`${label} returned an unreadable data: URL: ${(err as Error).message}`);
    }
  }
  try {
    const res = await providerRequest(label, 'GET', url, () => guardedFetch(url, {
      allowPrivate: common.allowPrivate,
      maxBytes: common.downloadMaxBytes,
      timeoutMs: common.downloadTimeoutMs,
      signal,
    }), (r) => ({ status: r.status, error: r.ok ? undefined : new Error(`HTTP ${r.status}`) }));
    if (!res.ok) throw new EngineError(`downloading the ${label} output ${describeUrl(url)} failed: HTTP ${res.status}`, res.status >= 500);
    if (res.body.length === 0) throw new EngineError(`the ${label} output ${describeUrl(url)} is empty`);
    return res.body;
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    if (err instanceof OutboundError) {
      throw new EngineError(`cannot download the ${label} output ${describeUrl(url)}: ${err.message}`, err.code === 'timeout' || err.code === 'network');
    }
    throw err;
  }
}

/**
 * Every file URL in a provider's JSON answer, in document order: objects with a `url` (fal's
 * `{ images: [{ url }] }`, `{ video: { url } }`) and bare URL strings (Replicate's output).
 */
export function findFileUrls(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (/^(https?:\/\/|data:)/i.test(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) findFileUrls(v, out);
  } else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.url === 'string' && /^(https?:\/\/|data:)/i.test(o.url)) {
      out.push(o.url);
      return out;
    }
    for (const v of Object.values(o)) findFileUrls(v, out);
  }
  return out;
}

/** A dotted path into JSON ("images", "video.url", "data.0"); undefined when absent. */
export function pick(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Downloads every file a result names; an answer with none is a provider failure, not an empty success. */
export async function filesFromResult(result: unknown, opts: { path?: string; common: ResolvedCommon; signal: AbortSignal; label: string; base?: string; expect?: unknown }): Promise<FileOutput[]> {
  const urls = findFileUrls(pick(result, opts.path));
  if (urls.length === 0) throw new EngineError(`${opts.label} finished but returned no output file`);
  const kinds = expectedKinds(opts.expect);
  const files: FileOutput[] = [];
  for (const [i, url] of urls.entries()) {
    const data = await downloadOutput(url, opts.common, opts.signal, opts.label);
    const base = urls.length > 1 ? `${opts.base ?? 'result'}-${i + 1}` : (opts.base ?? 'result');
    files.push(kinds ? expectMedia(data, kinds, base, opts.label) : fileOutput(data, base));
  }
  return files;
}

type MediaKind = 'image' | 'audio' | 'video';

/** A binding's `expect` option (catalog/outputKinds.ts): "image", "audio", "video" or a list of them. */
export function expectedKinds(v: unknown): MediaKind[] | undefined {
  const list = (Array.isArray(v) ? v : [v]).filter((k): k is MediaKind => k === 'image' || k === 'audio' || k === 'video');
  return list.length ? list : undefined;
}

/** Text a provider returned: a string, or a list of tokens (Replicate's streamed LLM output). */
export function textFromResult(result: unknown, path: string | undefined, label: string): string {
  const v = pick(result, path);
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join('');
  throw new EngineError(`${label} finished but returned no text${path ? ` at "${path}"` : ''}`);
}

/**
 * A file a provider sent as bytes, typed by sniffing and refused unless it is the kind it was asked for
 * (a JSON error page served with 200, a truncated body): such an answer fails the run, so it is neither
 * stored nor charged.
 */
export function expectMedia(data: Buffer, kinds: Array<'image' | 'audio' | 'video'>, base: string, label: string): FileOutput {
  if (data.length === 0) throw new EngineError(`${label} answered with an empty file`);
  const file = fileOutput(data, base);
  const top = file.contentType.split('/')[0] as string;
  if (!(kinds as string[]).includes(top)) {
    throw new EngineError(`${label} answered with something that is not ${kinds.join(' or ')} (${file.contentType}${file.contentType === 'application/octet-stream' ? `, starting ${JSON.stringify(data.subarray(0, 24).toString('latin1'))}` : ''})`);
  }
  return file;
}
