import { AppError } from '../errors.js';
import { mediaKind, sniffContentType } from '../engines/media.js';
import { readWavInfo } from '../engines/local/audio/wav.js';
import { mediaDimensions } from './dimensions.js';
import type { FileRecord, FileService } from './service.js';

/**
 * User uploads (the editor's form, MCP upload_file): one set of rules for every way in, so a limit added
 * here applies to all of them. Only images, audio and video are kept, recognised from their bytes (a
 * caller's declared type is not trusted), at most MAX_UPLOAD_BYTES each.
 */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export interface Upload {
  data: Buffer;
  /** What the caller says it is; the bytes decide. */
  declaredType?: string;
  filename?: string;
}

function refuse(message: string, path = 'body'): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: [{ path, message }] });
}

/** Stores an upload as the account's file (no run), with what is known of its size and length. */
export async function storeUpload(files: FileService, db: Parameters<FileService['save']>[0], accountId: string, u: Upload, path = 'body'): Promise<FileRecord> {
  if (u.data.length === 0) throw refuse('the file is empty', path);
  if (u.data.length > MAX_UPLOAD_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `the file is ${u.data.length} bytes; uploads are at most ${MAX_UPLOAD_BYTES} bytes`);
  const sniffed = sniffContentType(u.data);
  if (mediaKind(sniffed) === 'other') {
    throw refuse(`upload an image, audio or video file; these bytes are ${u.declaredType ? `not the ${u.declaredType} they claim to be but ` : ''}of no known media format`, path);
  }
  const dims = mediaDimensions(u.data, sniffed);
  const wav = sniffed === 'audio/wav' ? readWavInfo(u.data) : null;
  const filename = u.filename?.replace(/[^\w.\- ]+/g, '_').slice(0, 200) || undefined;
  return files.save(db, accountId, {
    kind: 'file', data: u.data, contentType: sniffed, filename,
    ...(dims ? { width: dims.width, height: dims.height } : {}),
    ...(wav && wav.sampleRate > 0 ? { durationSeconds: wav.durationSeconds } : {}),
  }, null);
}
