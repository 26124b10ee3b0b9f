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
