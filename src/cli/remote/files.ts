import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../args.js';
import type { FileRef } from './inputs.js';

const TYPES: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif',
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.flac': 'audio/flac', '.mid': 'audio/midi',
  '.mp4': 'video/mp4', '.webm': 'video/webm', '.mov': 'video/quicktime',
  '.txt': 'text/plain', '.md': 'text/markdown', '.json': 'application/json', '.srt': 'text/plain', '.vtt': 'text/vtt',
};

const EXTENSIONS: Record<string, string> = Object.fromEntries(
  Object.entries(TYPES).filter(([ext]) => !['.jpeg', '.srt', '.md'].includes(ext)).map(([ext, type]) => [type, ext]),
);

/** Reads `@path` for an input: the server sniffs the real type from the bytes, the extension is only a label. */
export function readFileRef(file: string): FileRef {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  return { dataUrl: `data:${type};base64,${bytes.toString('base64')}`, text: bytes.toString('utf8') };
}

/** A file extension for a content type (`.bin` when unknown), so saved outputs open in the right program. */
export function extensionFor(contentType: string): string {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[base] ?? (base === 'audio/x-wav' || base === 'audio/wave' ? '.wav' : base.startsWith('text/') ? '.txt' : '.bin');
}

/** Media files larger than this go to POST /v1/files and the input carries their URL; smaller ones travel inline. */
export const INLINE_MAX_BYTES = 256 * 1024;
const TOKEN = 'atelier-upload:';

/**
 * `@path` inputs for a command that starts runs: small files become data: URLs (readFileRef); a larger
 * media file is uploaded once (POST /v1/files, streamed from disk) and the input gets its stable URL, so a
 * 40 MB video is neither base64-inflated nor limited by the JSON body size. `read` stays synchronous for
 * the pure input builder (src/cli/remote/inputs.ts): it leaves a placeholder that `resolve` replaces.
 */
export function fileRefs(client: { files: { upload(data: Blob, opts: { contentType?: string; filename?: string }): Promise<{ stableUrl: string }> } }) {
  const pending = new Map<string, string>();
  const read = (file: string): FileRef => {
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (size <= INLINE_MAX_BYTES) return readFileRef(file);
    return {
      get dataUrl() {
        const token = `${TOKEN}${pending.size}`;
        pending.set(token, file);
        return token;
      },
      get text() {
        return fs.readFileSync(file, 'utf8');
      },
    };
  };
  const resolve = async <T>(input: T): Promise<T> => {
    const urls = new Map<string, string>();
    for (const [token, file] of pending) {
      const blob = await fs.openAsBlob(file);
      const up = await client.files.upload(blob, { filename: path.basename(file) });
      urls.set(token, up.stableUrl);
    }
    const swap = (v: unknown): unknown => {
      if (typeof v === 'string') return urls.get(v) ?? v;
      if (Array.isArray(v)) return v.map(swap);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]));
      return v;
    };
    return swap(input) as T;
  };
  return { read, resolve };
}
