import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';

/**
 * Where artifact bytes live, addressed by their SHA-256. Two implementations: `LocalBlobStore` (a folder,
 * DATA_DIR/files by default) and `S3BlobStore` (an S3-compatible bucket, src/files/s3BlobStore.ts), picked by
 * `createBlobStore` (src/files/stores.ts). Metadata (owner, type, size, dimensions) is kept in PostgreSQL,
 * never here.
 */
export interface BlobStore {
  /** Where the bytes live, for logs and `atelier doctor` (e.g. "s3://bucket/prefix"). */
  readonly where: string;
  /** Stores the bytes (idempotent: the same bytes give the same key) and returns their SHA-256 hex. */
  put(data: Buffer): Promise<string>;
  /**
   * Stores a stream of bytes without holding it in memory (hashing as it passes) and returns its SHA-256
   * and length. Identical content ends up under one key, as with put().
   */
  putStream(source: Readable): Promise<{ sha256: string; bytes: number }>;
  /**
   * A stream of the blob, or of the inclusive byte range [start, end]. Rejects with a `BlobMissingError`
   * when the blob does not exist, before any byte is sent (so a caller can still answer 404).
   */
  read(sha256: string, range?: { start: number; end: number }): Promise<Readable>;
  has(sha256: string): Promise<boolean>;
  remove(sha256: string): Promise<void>;
  /**
   * A short-lived URL from which anyone may GET the blob directly, when the store can make one (S3 presigned
   * URLs); undefined when it cannot (local folder).
   */
  directUrl?(sha256: string, opts: { expiresInSeconds: number; contentType: string; contentDisposition?: string }): Promise<string>;
  /** Releases connections (S3 client sockets). */
  close?(): void;
}

export class BlobMissingError extends Error {
  constructor(readonly sha256: string) {
    super(`blob ${sha256} is missing from the artifact store`);
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

export function checkSha(sha256: string): string {
  if (!HEX64.test(sha256)) throw new Error('not a SHA-256 hex digest');
  return sha256;
}

/** A pass-through that hashes and counts what flows through it. */
export function hashingStream(): Transform & { digest(): { sha256: string; bytes: number } } {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  }) as Transform & { digest(): { sha256: string; bytes: number } };
  t.digest = () => ({ sha256: hash.digest('hex'), bytes });
  return t;
}

export class LocalBlobStore implements BlobStore {
  readonly where: string;

  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
    this.where = root;
  }

  private pathOf(sha256: string): string {
    checkSha(sha256);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  private tmpName(): string {
    return path.join(this.root, `.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  }

  async put(data: Buffer): Promise<string> {
    const sha = crypto.createHash('sha256').update(data).digest('hex');
    const target = this.pathOf(sha);
    if (fs.existsSync(target)) return sha;
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    // Write then rename, so a crash never leaves a truncated blob under a valid hash.
    const tmp = `${target}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    await fs.promises.writeFile(tmp, data);
    await fs.promises.rename(tmp, target);
    return sha;
  }

  async putStream(source: Readable): Promise<{ sha256: string; bytes: number }> {
    const tmp = this.tmpName();
    const hasher = hashingStream();
    try {
      await pipeline(source, hasher, fs.createWriteStream(tmp));
      const got = hasher.digest();
      const target = this.pathOf(got.sha256);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(tmp, target);
      return got;
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    const file = this.pathOf(sha256);
    // Opened first, so a missing blob is an error the caller sees before it answers.
    const handle = await fs.promises.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new BlobMissingError(sha256) : err;
    });
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async has(sha256: string): Promise<boolean> {
    return fs.promises.access(this.pathOf(sha256)).then(() => true, () => false);
  }

  async remove(sha256: string): Promise<void> {
    await fs.promises.rm(this.pathOf(sha256), { force: true });
  }
}
