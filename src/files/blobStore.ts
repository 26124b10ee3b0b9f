import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where artifact bytes live, addressed by their SHA-256. The local implementation writes under
 * DATA_DIR/files; an S3-compatible store implements the same four methods (put = PutObject with the hash
 * as key, read = GetObject with a Range, remove = DeleteObject, has = HeadObject) so that several machines
 * can share artifacts. Metadata (owner, type, size, dimensions) is kept in PostgreSQL, never here.
 */
export interface BlobStore {
  /** Stores the bytes (idempotent: the same bytes give the same key) and returns their SHA-256 hex. */
  put(data: Buffer): Promise<string>;
  /** A stream of the blob, or of the inclusive byte range [start, end]. */
  read(sha256: string, range?: { start: number; end: number }): Readable;
  has(sha256: string): Promise<boolean>;
  remove(sha256: string): Promise<void>;
}

const HEX64 = /^[0-9a-f]{64}$/;

export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
  }

  private pathOf(sha256: string): string {
    if (!HEX64.test(sha256)) throw new Error('not a SHA-256 hex digest');
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
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

  read(sha256: string, range?: { start: number; end: number }): Readable {
    return fs.createReadStream(this.pathOf(sha256), range);
  }

  async has(sha256: string): Promise<boolean> {
    return fs.promises.access(this.pathOf(sha256)).then(() => true, () => false);
  }

  async remove(sha256: string): Promise<void> {
    await fs.promises.rm(this.pathOf(sha256), { force: true });
  }
}
