import { describeUrl, guardedFetch, OutboundError } from '../net/urlGuard.js';
import { EngineInputError, type FetchMediaOptions, type Media } from './types.js';

/**
 * Media inputs: fetching them (https, data: and this service's own file URLs) with the outbound guard,
 * and recognising what they are from their first bytes. Headers and data: URL types are ignored on
 * purpose: a caller can claim anything, and engines must not feed a PDF to an image decoder.
 */

export type MediaKind = 'image' | 'audio' | 'video' | 'other';

const ascii = (b: Buffer, start: number, text: string) => b.length >= start + text.length && b.toString('latin1', start, start + text.length) === text;

/** The content type the bytes really are, or application/octet-stream when none of the known formats. */
export function sniffContentType(b: Buffer): string {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return 'image/gif';
  if (ascii(b, 0, 'RIFF') && b.length >= 12) {
    if (ascii(b, 8, 'WEBP')) return 'image/webp';
    if (ascii(b, 8, 'WAVE')) return 'audio/wav';
    if (ascii(b, 8, 'AVI ')) return 'video/x-msvideo';
  }
  // BMP: "BM" alone is too common at the start of text; the DIB header size must be a known one.
  if (ascii(b, 0, 'BM') && b.length >= 18 && [12, 40, 52, 56, 64, 108, 124].includes(b.readUInt32LE(14))) return 'image/bmp';
  if (b.length >= 4 && ((ascii(b, 0, 'II') && b[2] === 42 && b[3] === 0) || (ascii(b, 0, 'MM') && b[2] === 0 && b[3] === 42))) return 'image/tiff';
  if (ascii(b, 0, 'fLaC')) return 'audio/flac';
  if (ascii(b, 0, 'OggS')) {
    // The first page holds the codec's identification header.
    const head = b.subarray(0, 80).toString('latin1');
    return head.includes('theora') ? 'video/ogg' : 'audio/ogg';
  }
  if (b.length >= 12 && ascii(b, 4, 'ftyp')) {
    const brand = b.toString('latin1', 8, 12);
    if (brand === 'qt  ') return 'video/quicktime';
    if (['M4A ', 'M4B ', 'F4A '].includes(brand)) return 'audio/mp4';
    if (['avif', 'avis'].includes(brand)) return 'image/avif';
    if (['heic', 'heix', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
    return 'video/mp4';
  }
  // Old QuickTime files start with a top-level atom instead of ftyp.
  if (b.length >= 8 && ['moov', 'mdat', 'wide', 'free', 'pnot'].some((a) => ascii(b, 4, a))) return 'video/quicktime';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) {
    return b.subarray(0, 64).includes('webm', 0, 'latin1') ? 'video/webm' : 'video/x-matroska';
  }
  if (ascii(b, 0, 'ID3')) return 'audio/mpeg';
  if (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) {
    const version = (b[1]! >> 3) & 3;
    const layer = (b[1]! >> 1) & 3;
    if (version !== 1 && layer === 1) return 'audio/mpeg'; // MPEG audio layer III frame sync
    if (layer === 0 && (b[1]! & 0xf6) === 0xf0) return 'audio/aac'; // ADTS
  }
  return 'application/octet-stream';
}

export function mediaKind(contentType: string): MediaKind {
  const top = contentType.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'other';
}

const ACCEPT_WORDS: Record<NonNullable<FetchMediaOptions['accept']>, string> = {
  image: 'an image (PNG, JPEG, GIF, WebP, BMP or TIFF)',
  audio: 'audio (WAV, MP3, OGG, FLAC, AAC or M4A)',
  video: 'a video (MP4, MOV, WebM, MKV or AVI)',
  avmedia: 'audio or video',
  any: 'a file',
};

function accepts(accept: FetchMediaOptions['accept'], kind: MediaKind): boolean {
  switch (accept ?? 'any') {
    case 'any': return true;
    case 'avmedia': return kind === 'audio' || kind === 'video';
    default: return kind === accept;
  }
}

/** Checks sniffed media against what the engine accepts; throws an input error naming both. */
export function checkMediaKind(media: Media, accept: FetchMediaOptions['accept'], what: string): void {
  if (accepts(accept, mediaKind(media.contentType))) return;
  const found = media.contentType === 'application/octet-stream' ? 'an unrecognised format' : media.contentType;
  throw new EngineInputError(`${what} must be ${ACCEPT_WORDS[accept ?? 'any']}, but its bytes are ${found}`);
}

const mb = (n: number) => (n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : `${n} bytes`);

/** Bytes of a data: URL (RFC 2397), base64 or percent-encoded. The declared type is ignored. */
export function decodeDataUrl(url: string, maxBytes: number): Buffer {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new EngineInputError('malformed data: URL (expected data:[type][;base64],…)');
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(meta)) {
    const clean = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) throw new EngineInputError('data: URL is marked base64 but is not valid base64');
    if (Math.floor((clean.length * 3) / 4) > maxBytes + 2) throw new EngineInputError(`data: URL content is larger than the limit of ${mb(maxBytes)}`);
    const bytes = Buffer.from(clean, 'base64');
    if (bytes.length > maxBytes) throw new EngineInputError(`data: URL content is larger than the limit of ${mb(maxBytes)}`);
    return bytes;
  }
  // Percent-encoded: %XX is a byte, anything else is UTF-8 text.
  const parts: Buffer[] = [];
  let total = 0;
  for (const m of payload.matchAll(/%([0-9a-fA-F]{2})|[^%]+|%/g)) {
    const part = m[1] ? Buffer.from([parseInt(m[1], 16)]) : Buffer.from(m[0], 'utf8');
    total += part.length;
    if (total > maxBytes) throw new EngineInputError(`data: URL content is larger than the limit of ${mb(maxBytes)}`);
    parts.push(part);
  }
  return Buffer.concat(parts);
}

export interface MediaFetcherOptions {
  /** ATELIER_ALLOW_PRIVATE_URLS: fetch from internal addresses, and over plain http. */
  allowPrivate: boolean;
  /** The operator's ceiling; an engine may ask for less per call, never more. */
  maxBytes: number;
  timeoutMs: number;
  /** The execution's signal: a canceled run stops its downloads. */
  signal?: AbortSignal;
  /** Resolves this service's own file URLs (signed or not) straight from the file store; undefined when the URL is not one. */
  resolveOwnFile?: (url: URL) => Promise<Media | undefined>;
}

export type FetchMedia = (url: string, opts?: FetchMediaOptions) => Promise<Media>;

/** The EngineContext.fetchMedia of one execution. */
export function createMediaFetcher(o: MediaFetcherOptions): FetchMedia {
  return async function fetchMedia(url, opts = {}) {
    if (typeof url !== 'string' || url.trim() === '') throw new EngineInputError('media URL is empty');
    const limit = Math.min(opts.maxBytes ?? o.maxBytes, o.maxBytes);
    const shown = describeUrl(url.startsWith('data:') ? `${url.slice(0, 40)}…` : url);

    let bytes: Buffer;
    let handOff: string | undefined; // a URL a provider can fetch the same bytes from (own files only)
    if (url.startsWith('data:')) {
      bytes = decodeDataUrl(url, limit);
    } else {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new EngineInputError(`not a valid URL: ${shown}`);
      }
      const own = o.resolveOwnFile ? await o.resolveOwnFile(parsed) : undefined;
      if (own) {
        if (own.bytes.length > limit) throw new EngineInputError(`${shown} is ${mb(own.bytes.length)}, larger than the limit of ${mb(limit)}`);
        bytes = own.bytes;
        handOff = own.url;
      } else {
        if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && o.allowPrivate)) {
          throw new EngineInputError(`media URLs must be https:, data: or a file URL of this service, not ${parsed.protocol} (${shown})`);
        }
        bytes = await download(parsed, limit, shown, o);
      }
    }
    if (bytes.length === 0) throw new EngineInputError(`${shown} is empty`);
    const media: Media = { bytes, contentType: sniffContentType(bytes) };
    checkMediaKind(media, opts.accept, shown);
    return handOff ? { ...media, url: handOff } : media;
  };
}

async function download(url: URL, limit: number, shown: string, o: MediaFetcherOptions): Promise<Buffer> {
  try {
    const res = await guardedFetch(url, {
      allowPrivate: o.allowPrivate,
      allowHttp: o.allowPrivate,
      maxBytes: limit,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      headers: { accept: 'image/*, audio/*, video/*, */*;q=0.5' },
    });
    if (!res.ok) throw new EngineInputError(`could not fetch ${shown}: the server answered HTTP ${res.status}`);
    return res.body;
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    switch (err.code) {
      case 'aborted':
        throw o.signal?.reason instanceof Error ? o.signal.reason : err;
      case 'too-large':
        throw new EngineInputError(`${shown} is larger than the limit of ${mb(limit)}`);
      case 'timeout':
        throw new EngineInputError(`fetching ${shown} took longer than ${o.timeoutMs / 1000} s`);
      case 'blocked-address':
      case 'scheme':
      case 'insecure':
      case 'invalid-url':
        throw new EngineInputError(`refused to fetch ${shown}: ${err.message}`);
      default:
        throw new EngineInputError(`could not fetch ${shown}: ${err.message}`);
    }
  }
}
