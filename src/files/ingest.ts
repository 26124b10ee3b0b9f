import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { mediaKind, sniffContentType } from '../engines/media.js';
import { readWavInfo } from '../engines/local/audio/wav.js';
import { probeMedia } from '../engines/local/video/probe.js';
import { NoSpaceError } from './blobStore.js';
import { mediaDimensions } from './dimensions.js';
import type { FileRecord, FileService } from './service.js';

/**
 * Uploads (POST /v1/files raw or multipart, from a URL or base64, the editor's form, MCP upload_file, a
 * presigned direct upload's completion): one way in, so a limit added here applies to all of them.
 *
 * The bytes stream to the blob store and are never held whole: only the first HEAD_BYTES are kept, to
 * recognise the format (a caller's declared type is checked against the bytes, never trusted) and read
 * an image's size from its header. The account's quota room is held (FileService.reserve) before the
 * first byte is written and given back whatever happens; the row is written when the bytes are stored.
 */

/** Enough for every header sniffContentType and mediaDimensions read (a JPEG's SOF can follow large EXIF). */
export const HEAD_BYTES = 64 * 1024;
/** How long an upload's quota room is held at most (a process killed mid-upload gives it back then). */
const HOLD_SECONDS = 3600;

export interface IngestSource {
  body: Readable;
  /** What the caller says the bytes are (Content-Type, the part's type, contentType): checked, never trusted. */
  declaredType?: string;
  filename?: string;
  /** The size the caller announced (Content-Length); room for it is held up front. */
  declaredBytes?: number;
  /** Where a refusal points in the error body ("body", "url", "file"). */
  path?: string;
}

function refuse(code: 'UNSUPPORTED_MEDIA_TYPE' | 'VALIDATION_ERROR', message: string, path: string): AppError {
  return new AppError(code, message, { details: [{ path, message }] });
}

/**
 * Types that name one format under several names, and containers whose audio-only and video forms share
 * their first bytes (an MP4 brand does not say whether a video track follows): a claim within one group
 * is the truth; across groups it is refused.
 */
const SAME_FORMAT: Record<string, string> = {
  'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-ms-bmp': 'image/bmp', 'image/heif': 'image/heic',
  'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/vnd.wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg', 'audio/mpeg3': 'audio/mpeg', 'audio/x-mpeg': 'audio/mpeg',
  'audio/x-flac': 'audio/flac', 'audio/x-aac': 'audio/aac', 'audio/aacp': 'audio/aac',
  'audio/mp4': 'mp4', 'audio/x-m4a': 'mp4', 'audio/m4a': 'mp4', 'video/mp4': 'mp4', 'video/x-m4v': 'mp4', 'video/quicktime': 'mp4',
  'audio/ogg': 'ogg', 'video/ogg': 'ogg', 'application/ogg': 'ogg',
  'video/webm': 'mkv', 'audio/webm': 'mkv', 'video/x-matroska': 'mkv', 'audio/x-matroska': 'mkv',
  'video/avi': 'video/x-msvideo', 'video/msvideo': 'video/x-msvideo',
};
/** Claims that say nothing about the format: the bytes decide. */
const NO_CLAIM = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/x-www-form-urlencoded']);

function formatOf(type: string): string {
  return SAME_FORMAT[type] ?? type;
}

/** The declared type without parameters, lower case; undefined when it claims nothing. */
export function claimOf(declared: string | undefined): string | undefined {
  const t = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  return NO_CLAIM.has(t) ? undefined : t;
}

/** Refuses bytes that are no known media, or that are not what the caller claims (415, naming both). */
export function checkClaim(head: Buffer, declared: string | undefined, path: string): string {
  const sniffed = sniffContentType(head);
  const claim = claimOf(declared);
  if (mediaKind(sniffed) === 'other') {
    throw refuse('UNSUPPORTED_MEDIA_TYPE', `upload an image, audio or video file; these bytes are ${claim ? `not the ${claim} they claim to be but ` : ''}of no known media format`, path);
  }
  if (claim && formatOf(claim) !== formatOf(sniffed)) {
    throw refuse('UNSUPPORTED_MEDIA_TYPE', `the upload claims to be ${claim} but its bytes are ${sniffed}; send the file's real type (or application/octet-stream to let the bytes decide)`, path);
  }
  return sniffed;
}

/**
 * A pass-through that holds the first HEAD_BYTES until they decide the type (then lets everything through)
 * and stops the stream once it passes `limit` bytes.
 */
class Gate extends Transform {
  head: Buffer | undefined;
  contentType: string | undefined;
  bytes = 0;
  failure: Error | undefined;
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly declared: string | undefined, private readonly limit: number, private readonly path: string) {
    super();
  }

  private decide(): void {
    this.head = Buffer.concat(this.held);
    this.contentType = checkClaim(this.head, this.declared, this.path);
    this.push(this.head);
    this.held = [];
  }

  private fail(err: Error, cb: TransformCallback): void {
    this.failure = err;
    cb(err);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return this.fail(new AppError('PAYLOAD_TOO_LARGE', `the upload is larger than its limit of ${this.limit} bytes`), cb);
    if (this.contentType) return cb(null, chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes < HEAD_BYTES) return cb();
    try {
      this.decide();
      cb();
    } catch (err) {
      this.fail(err as Error, cb);
    }
  }

  override _flush(cb: TransformCallback): void {
    if (this.contentType) return cb();
    if (this.heldBytes === 0) return this.fail(refuse('VALIDATION_ERROR', 'the file is empty', this.path), cb);
    try {
      this.decide();
      cb();
    } catch (err) {
      this.fail(err as Error, cb);
    }
  }
}

export interface MediaFacts { width?: number; height?: number; durationSeconds?: number }

/** Width, height and length: an image's from its header; audio and video from ffmpeg reading the stored blob. */
export async function mediaFacts(files: FileService, sha256: string, contentType: string, head: Buffer): Promise<MediaFacts> {
  const dims = mediaDimensions(head, contentType);
  if (dims) return dims;
  if (contentType === 'audio/wav') {
    const wav = readWavInfo(head);
    if (wav && wav.sampleRate > 0 && wav.durationSeconds > 0) return { durationSeconds: wav.durationSeconds };
  }
  const kind = mediaKind(contentType);
  if (kind !== 'audio' && kind !== 'video') return {};
  // ffmpeg reads the blob where it lies (a local path, or a short-lived URL of the bucket's object); a
  // machine without ffmpeg, or a file it cannot read, gets an answer without these facts, not a refusal.
  const where = files.blobs.localPath?.(sha256)
    ?? await files.blobs.directUrl?.(sha256, { expiresInSeconds: 300, contentType }).catch(() => undefined);
  if (!where) return {};
  try {
    const p = await probeMedia(where, AbortSignal.timeout(60_000), { decodeForDuration: false });
    return {
      ...(p.video ? { width: p.video.width, height: p.video.height } : {}),
      ...(p.durationSeconds !== undefined && p.durationSeconds > 0 ? { durationSeconds: p.durationSeconds } : {}),
    };
  } catch {
    return {};
  }
}

function safeFilename(name: string | undefined): string | undefined {
  return name?.replace(/[^\w.\- ]+/g, '_').slice(0, 200) || undefined;
}

export class Uploads {
  constructor(private readonly files: FileService, private readonly db: Db, readonly maxBytes: number) {}

  /** Streams an upload into the store and registers it as the account's file (no run). */
  async ingest(accountId: string, src: IngestSource): Promise<FileRecord> {
    const path = src.path ?? 'body';
    if (src.declaredBytes !== undefined && src.declaredBytes > this.maxBytes) {
      src.body.resume();
      throw new AppError('PAYLOAD_TOO_LARGE', `the upload is ${src.declaredBytes} bytes; uploads are at most ${this.maxBytes} bytes (ATELIER_UPLOAD_MAX_MB)`);
    }
    const hold = src.declaredBytes ?? this.maxBytes;
    const reservation = await this.files.reserve(accountId, hold, HOLD_SECONDS);
    const gate = new Gate(src.declaredType, hold, path);
    try {
      src.body.on('error', (err) => gate.destroy(err));
      let stored: { sha256: string; bytes: number };
      try {
        stored = await this.files.blobs.putStream(src.body.pipe(gate));
      } catch (err) {
        src.body.unpipe(gate);
        if (gate.failure) throw gate.failure;
        if (err instanceof NoSpaceError) throw new AppError('INSUFFICIENT_STORAGE', `the service is out of storage space for files (${err.message}); try again later`, { headers: { 'retry-after': '60' } });
        throw err;
      }
      const contentType = gate.contentType!;
      const facts = await mediaFacts(this.files, stored.sha256, contentType, gate.head!);
      return await this.registerAndRelease(accountId, reservation, { ...stored, contentType, filename: safeFilename(src.filename), ...facts });
    } catch (err) {
      await this.files.release(reservation).catch(() => {});
      throw err;
    }
  }

  /** Buffered bytes (a data: URI, base64, a fetched URL, the editor's form) through the same path. */
  ingestBuffer(accountId: string, data: Buffer, src: Omit<IngestSource, 'body' | 'declaredBytes'>): Promise<FileRecord> {
    return this.ingest(accountId, { ...src, body: Readable.from([data]), declaredBytes: data.length });
  }

  /** The row and the end of the holding in one transaction: the quota never counts the upload twice or not at all. */
  async registerAndRelease(accountId: string, reservation: string, f: Parameters<FileService['register']>[2]): Promise<FileRecord> {
    const client = await this.db.pool.connect();
    try {
      await client.query('BEGIN');
      const rec = await this.files.register(client, accountId, f, null);
      await this.files.release(reservation, client);
      await client.query('COMMIT');
      return rec;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
