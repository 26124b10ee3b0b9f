import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BlobMissingError, checkSha, hashingStream, type BlobStore } from './blobStore.js';
import type { BlobStoreConfig } from '../config.js';

/**
 * Parts of 5 MiB (S3's smallest), two in flight: a large output or upload costs about 15 MiB of part buffers
 * however large it is (test/system/uploadMemory.test.ts measures a 200 MB upload's whole growth).
 */
const PART_BYTES = 5 * 1024 * 1024;
const QUEUE = 2;

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Artifacts in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, GCS's XML API…), on the official AWS
 * SDK v3. Keys are `PREFIX blobs/SHA256`; content-addressed like the local store, so identical outputs share
 * one object. Credentials come from the SDK's standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
 * AWS_PROFILE, web identity, instance or task role…), never from Atelier's own settings.
 *
 * A stream whose hash is not known up front is uploaded (multipart above 8 MiB) under `PREFIX incoming/…`
 * while it is hashed, then copied server-side to its final key and the incoming object deleted; a process
 * killed in between leaves only an `incoming/` object, which a bucket lifecycle rule expires (docs/deploy.md).
 */
export class S3BlobStore implements BlobStore {
  readonly where: string;
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;

  constructor(cfg: NonNullable<BlobStoreConfig['s3']>, clientOverrides: Partial<S3ClientConfig> = {}) {
    // The pinned SDK line supports Node 20; its start-up notice about later releases needing Node 22 is for
    // whoever upgrades the pin (docs/deploy.md), not for every process start.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.bucket = cfg.bucket;
    this.prefix = cfg.prefix;
    this.where = `s3://${cfg.bucket}/${cfg.prefix}${cfg.endpoint ? ` at ${cfg.endpoint}` : ''}`;
    this.client = new S3Client({
      region: cfg.region,
      ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
      forcePathStyle: cfg.forcePathStyle,
      // Checksums only where the API requires them: S3-compatible servers differ in which of the SDK's newer
      // default integrity headers they accept; content addressing already verifies what we read back.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 4,
      ...clientOverrides,
    });
  }

  keyOf(sha256: string): string {
    return `${this.prefix}blobs/${checkSha(sha256)}`;
  }

  private async upload(key: string, body: Buffer | Readable): Promise<void> {
    // lib-storage sends one PutObject for a body under one part, else a multipart upload (aborted on failure).
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body }, partSize: PART_BYTES, queueSize: QUEUE });
    await upload.done();
  }

  async put(data: Buffer): Promise<string> {
    const sha = crypto.createHash('sha256').update(data).digest('hex');
    if (!(await this.has(sha))) await this.upload(this.keyOf(sha), data);
    return sha;
  }

  /**
   * Moves an object already in the bucket under `incoming/` (a presigned direct upload, src/files/directUploads.ts)
   * to its content address: `body` (the object's bytes) is hashed as it streams past, then the object is copied
   * server-side. The caller deletes the incoming object.
   */
  async adopt(incomingKey: string, body: Readable): Promise<{ sha256: string; bytes: number }> {
    const hasher = hashingStream();
    for await (const chunk of body.pipe(hasher)) void chunk;
    const got = hasher.digest();
    if (!(await this.has(got.sha256))) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(got.sha256), CopySource: `${this.bucket}/${encodeURIComponent(incomingKey).replace(/%2F/g, '/')}` }));
    }
    return got;
  }

  async putStream(source: Readable): Promise<{ sha256: string; bytes: number }> {
    const incoming = `${this.prefix}incoming/${crypto.randomUUID()}`;
    const hasher = hashingStream();
    source.on('error', (err) => hasher.destroy(err));
    try {
      try {
        await this.upload(incoming, source.pipe(hasher));
      } catch (err) {
        // The upload failed (and lib-storage aborted its multipart upload): release the source (a file handle).
        source.destroy();
        throw err;
      }
      const got = hasher.digest();
      if (!(await this.has(got.sha256))) {
        await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(got.sha256), CopySource: `${this.bucket}/${encodeURIComponent(incoming).replace(/%2F/g, '/')}` }));
      }
      return got;
    } finally {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: incoming })).catch(() => {});
    }
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key: this.keyOf(sha256), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }));
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new BlobMissingError(sha256);
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async remove(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
  }

  async directUrl(sha256: string, opts: { expiresInSeconds: number; contentType: string; contentDisposition?: string }): Promise<string> {
    const cmd = new GetObjectCommand({
      Bucket: this.bucket, Key: this.keyOf(sha256), ResponseContentType: opts.contentType,
      ...(opts.contentDisposition ? { ResponseContentDisposition: opts.contentDisposition } : {}),
    });
    return getSignedUrl(this.client, cmd, { expiresIn: opts.expiresInSeconds });
  }

  close(): void {
    this.client.destroy();
  }
}
