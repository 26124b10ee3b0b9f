import crypto from 'node:crypto';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand,
  HeadObjectCommand, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { Db } from '../db/pool.js';
import type { FileService } from './service.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { checkClaim, HEAD_BYTES, mediaFacts } from './ingest.js';
import { S3BlobStore } from './s3BlobStore.js';
import type { FileRecord } from './service.js';
import { uploadsOf } from './upload.js';
import { insertDirectUpload, takeDirectUpload } from './queries.js';

/** S3 parts are at least 5 MiB (but the last) and at most 10,000 per upload. */
const MIN_PART_BYTES = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;
/** How long the part URLs, and the quota room held for them, last. */
const TTL_SECONDS = 3600;

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'upload not found');
}

/**
 * Large files straight to the bucket (issue 28): Atelier starts a multipart upload under `incoming/`,
 * answers presigned part URLs and holds the declared size against the account's quota; the client PUTs the
 * parts to the object store (no byte passes through Atelier); at completion Atelier checks the object's
 * size against the declaration and its first bytes against the claimed type, hashes it (streamed, so the
 * memory it costs is fixed) into its content address, reads its media facts and registers the file.
 */
export class DirectUploads {
  constructor(private readonly services: Services, private readonly store: S3BlobStore) {}

  private get uploads() {
    return uploadsOf(this.services.files, this.services.db, this.services.config.storage.uploadMaxBytes);
  }

  async start(accountId: string, req: { bytes: number; contentType?: string; filename?: string }) {
    const max = this.uploads.maxBytes;
    if (req.bytes > max) throw new AppError('PAYLOAD_TOO_LARGE', `the upload is ${req.bytes} bytes; uploads are at most ${max} bytes (ATELIER_UPLOAD_MAX_MB)`);
    const partBytes = Math.max(MIN_PART_BYTES, Math.ceil(req.bytes / MAX_PARTS));
    const count = Math.ceil(req.bytes / partBytes);
    const reservation = await this.services.files.reserve(accountId, req.bytes, TTL_SECONDS + 600);
    const key = `${this.store.prefix}incoming/direct/${crypto.randomUUID()}`;
    try {
      const created = await this.store.client.send(new CreateMultipartUploadCommand({ Bucket: this.store.bucket, Key: key }));
      const s3UploadId = created.UploadId!;
      const parts = await Promise.all(Array.from({ length: count }, async (_, i) => ({
        partNumber: i + 1,
        url: await getSignedUrl(this.store.client, new UploadPartCommand({ Bucket: this.store.bucket, Key: key, UploadId: s3UploadId, PartNumber: i + 1 }), { expiresIn: TTL_SECONDS }),
      })));
      const id = newId('upl');
      const row = await insertDirectUpload(this.services.db, { id, accountId, reservation, key, s3UploadId, bytes: req.bytes, partBytes, contentType: req.contentType ?? null, filename: req.filename ?? null, ttlSeconds: TTL_SECONDS });
      return { uploadId: id, partBytes, parts, completeUrl: `${this.services.publicUrl()}/v1/uploads/${id}/complete`, expiresAt: (row.expires_at as Date).toISOString() };
    } catch (err) {
      await this.services.files.release(reservation).catch(() => {});
      throw err;
    }
  }

  private async row(accountId: string, id: string) {
    if (!/^upl_[0-9A-Za-z]{1,40}$/.test(id)) throw notFound();
    const r = await takeDirectUpload(this.services.db, accountId, id);
    if (!r) throw notFound();
    return r;
  }

  /** Registers the uploaded object as the account's file; any refusal removes the object and gives the room back. */
  async complete(accountId: string, id: string, parts: Array<{ partNumber: number; etag: string }>): Promise<FileRecord> {
    // Taken (deleted) first: two completions of one upload cannot both register it.
    const up = await this.row(accountId, id);
    const { bucket, client } = this.store;
    const Key = up.object_key;
    let completed = false;
    try {
      try {
        await client.send(new CompleteMultipartUploadCommand({
          Bucket: bucket, Key, UploadId: up.s3_upload_id,
          MultipartUpload: { Parts: [...parts].sort((a, b) => a.partNumber - b.partNumber).map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
        }));
        completed = true;
      } catch (err) {
        const e = err as { name?: string; message?: string };
        throw new AppError('VALIDATION_ERROR', `the object store refused to complete the upload (${e.name ?? 'error'}: ${e.message ?? ''}); check every part was sent and its ETag given`, { details: [{ path: 'body.parts', message: 'do not complete the upload' }] });
      }
      const size = Number((await client.send(new HeadObjectCommand({ Bucket: bucket, Key }))).ContentLength);
      if (size !== Number(up.bytes)) {
        throw new AppError('VALIDATION_ERROR', `the uploaded object is ${size} bytes, not the ${up.bytes} bytes declared`, { details: [{ path: 'body.parts', message: 'do not add up to the declared bytes' }] });
      }
      const headRes = await client.send(new GetObjectCommand({ Bucket: bucket, Key, Range: `bytes=0-${Math.min(size, HEAD_BYTES) - 1}` }));
      const head = Buffer.from(await headRes.Body!.transformToByteArray());
      const contentType = checkClaim(head, up.declared_type ?? undefined, 'body');
      const body = (await client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body as Readable;
      const stored = await this.store.adopt(Key, body);
      const facts = await mediaFacts(this.services.files, stored.sha256, contentType, head);
      return await this.uploads.registerAndRelease(accountId, up.reservation_id, {
        sha256: stored.sha256, bytes: stored.bytes, contentType, filename: up.filename ?? undefined, ...facts,
      });
    } catch (err) {
      await this.services.files.release(up.reservation_id).catch(() => {});
      if (!completed) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: up.s3_upload_id })).catch(() => {});
      throw err;
    } finally {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key })).catch(() => {});
    }
  }

  async abort(accountId: string, id: string): Promise<void> {
    const up = await this.row(accountId, id);
    await this.store.client.send(new AbortMultipartUploadCommand({ Bucket: this.store.bucket, Key: up.object_key, UploadId: up.s3_upload_id })).catch(() => {});
    await this.services.files.release(up.reservation_id);
  }
}

const made = new WeakMap<object, DirectUploads>();

/** What direct uploads need of the process's services (the Services object fits; files/ sits below it). */
interface Services {
  files: FileService;
  db: Db;
  config: { storage: { uploadMaxBytes: number } };
  publicUrl(): string;
}

/** The direct-upload service of this process; 409 when the artifact store is not a bucket. */
export function directUploadsOf(services: Services): DirectUploads {
  const store = services.files.blobs;
  if (!(store instanceof S3BlobStore)) {
    throw new AppError('CONFLICT', 'direct uploads need the S3 artifact store (ATELIER_BLOB_STORE=s3); send the file to POST /v1/files instead');
  }
  let d = made.get(services);
  if (!d) made.set(services, (d = new DirectUploads(services, store)));
  return d;
}
