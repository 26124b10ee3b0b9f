import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../errors.js';

export interface FilePart {
  /** The part's bytes, as they arrive (never buffered whole). */
  stream: Readable;
  filename?: string;
  /** The part's Content-Type: a claim, checked against the bytes by the upload (src/files/ingest.ts). */
  mimeType?: string;
  /** Text fields that came before the file (contentType, filename). */
  fields: Record<string, string>;
}

// busboy 1.x exports a plain factory (not a constructor); 0.x's constructor may be called without `new` too.
type BusboyCtor = (opts: { headers: IncomingHttpHeaders; limits?: Record<string, number> }) => Writable;

let parser: BusboyCtor | null | undefined;

/**
 * busboy, the streaming multipart parser (a dependency in package.json), loaded when a multipart upload
 * first arrives; it ships no types, hence the require. Should it be missing from an install, multipart
 * answers 415 and a raw body (Content-Type: the file's type) still works.
 */
function busboy(): BusboyCtor | null {
  if (parser !== undefined) return parser;
  try {
    parser = createRequire(import.meta.url)('busboy') as BusboyCtor;
  } catch {
    parser = null;
  }
  return parser;
}

/**
 * The first file of a multipart/form-data body, as a stream; later files are drained unread. Text fields
 * sent before the file are given with it (a field sent after it arrives too late to matter).
 */
export function firstFilePart(body: Readable, headers: IncomingHttpHeaders, maxFileBytes: number): Promise<FilePart> {
  const Busboy = busboy();
  if (!Busboy) {
    body.resume();
    return Promise.reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'multipart uploads are not available on this server (no multipart parser is installed); send the file as the raw body with its Content-Type'));
  }
  return new Promise((resolve, reject) => {
    let bb: Writable;
    try {
      bb = Busboy({ headers, limits: { files: 1, fields: 20, parts: 40, headerPairs: 50, fieldSize: 64 * 1024, fileSize: maxFileBytes + 1 } });
    } catch (err) {
      body.resume();
      reject(new AppError('VALIDATION_ERROR', `the multipart body cannot be read: ${(err as Error).message}`, { details: [{ path: 'body', message: 'is not multipart/form-data with a boundary' }] }));
      return;
    }
    const fields: Record<string, string> = {};
    let found = false;
    let current: Readable | undefined;
    bb.on('field', (name: string, value: string) => {
      if (!found) fields[name] = value;
    });
    // busboy 0.x passes (field, stream, filename, encoding, mimeType); 1.x (field, stream, { filename, mimeType }).
    bb.on('file', (_field: string, stream: Readable, a: unknown, _enc?: string, mime?: string) => {
      if (found) return stream.resume();
      found = true;
      current = stream;
      const info = typeof a === 'object' && a !== null ? a as { filename?: string; mimeType?: string } : { filename: a as string | undefined, mimeType: mime };
      resolve({ stream, filename: info.filename || undefined, mimeType: info.mimeType || undefined, fields });
    });
    bb.on('error', (err: Error) => {
      const e = new AppError('VALIDATION_ERROR', `the multipart body cannot be read: ${err.message}`, { details: [{ path: 'body', message: 'is malformed multipart/form-data' }] });
      if (current) current.destroy(e);
      else reject(e);
    });
    bb.on('finish', () => {
      if (!found) reject(new AppError('VALIDATION_ERROR', 'the multipart body has no file part', { details: [{ path: 'body.file', message: 'is required' }] }));
    });
    body.on('error', (err) => bb.destroy(err));
    body.pipe(bb);
  });
}
