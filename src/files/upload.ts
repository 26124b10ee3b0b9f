import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { createMediaFetcher, decodeDataUrl } from '../engines/media.js';
import { EngineInputError } from '../engines/types.js';
import { ownFileResolver } from './ownFiles.js';
import { Uploads } from './ingest.js';
import type { FileRecord, FileService } from './service.js';

/**
 * Uploads whose bytes arrive inside another request (the editor's form, a JSON or MCP `upload_file` body
 * with base64 or a data: URI, a URL the server fetches): at most MAX_UPLOAD_BYTES, since such a body is
 * held in memory. Larger files stream through POST /v1/files (src/files/ingest.ts, the same rules).
 */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export interface Upload {
  data: Buffer;
  /** What the caller says it is; the bytes decide. */
  declaredType?: string;
  filename?: string;
}

const services = new WeakMap<FileService, Uploads>();

/** The upload service over this file service (one per process, however many routes use it). */
export function uploadsOf(files: FileService, db: Db, maxBytes: number): Uploads {
  let u = services.get(files);
  if (!u) services.set(files, (u = new Uploads(files, db, maxBytes)));
  return u;
}

/** Stores a buffered upload as the account's file (no run): the same path as a streamed one. */
export async function storeUpload(files: FileService, db: Db, accountId: string, u: Upload, path = 'body'): Promise<FileRecord> {
  if (u.data.length > MAX_UPLOAD_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `the file is ${u.data.length} bytes; uploads sent inline are at most ${MAX_UPLOAD_BYTES} bytes (stream larger ones to POST /v1/files)`);
  return new Uploads(files, db, MAX_UPLOAD_BYTES).ingestBuffer(accountId, u.data, { declaredType: u.declaredType, filename: u.filename, path });
}

/** The hosted `upload_file` sources: a URL the server fetches, a data: URI, or plain base64. */
export interface UploadSource {
  url?: string;
  data?: string;
  base64?: string;
}

/**
 * The bytes of an `upload_file` source. A URL is fetched with the outbound guard runs use (private
 * addresses refused unless the operator allows them); this service's own file URLs resolve for their owner.
 */
export async function bytesOfSource(
  src: UploadSource,
  ctx: { files: FileService; accountId: string; publicUrl: () => string; allowPrivate: boolean; timeoutMs: number; maxBytes: number },
): Promise<{ bytes: Buffer; path: string }> {
  const given = (s: string | undefined) => (s && s.trim() !== '' ? s.trim() : undefined);
  const source = given(src.url) ?? given(src.data) ?? given(src.base64);
  const path = src.url ? 'url' : src.data ? 'data' : 'base64';
  if (!source) throw new AppError('VALIDATION_ERROR', 'give url, or data (a data: URI or base64)', { details: [{ path: 'url', message: 'url or data is required' }] });
  try {
    if (source.startsWith('data:')) return { bytes: decodeDataUrl(source, ctx.maxBytes), path };
    if (/^https?:\/\//i.test(source)) {
      const fetchMedia = createMediaFetcher({
        allowPrivate: ctx.allowPrivate, maxBytes: ctx.maxBytes, timeoutMs: ctx.timeoutMs,
        resolveOwnFile: async (u) => {
          try {
            return await ownFileResolver(ctx.files, ctx.accountId, ctx.publicUrl)(u);
          } catch (err) {
            // Another account's file without a valid signature, or an expired one: the caller's input is wrong.
            throw new EngineInputError((err as Error).message);
          }
        },
      });
      return { bytes: (await fetchMedia(source)).bytes, path };
    }
    return { bytes: decodeDataUrl(`data:;base64,${source}`, ctx.maxBytes), path };
  } catch (err) {
    if (err instanceof EngineInputError) throw new AppError('VALIDATION_ERROR', `${path}: ${err.message}`, { details: [{ path, message: err.message }] });
    throw err;
  }
}
