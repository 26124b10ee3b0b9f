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
   * Rejects with a `NoSpaceError` when storing `bytes` more would eat into the free space kept in reserve
   * (a local folder: statfs of its filesystem); stores that cannot run out (a bucket) leave it out.
   */
  ensureRoom?(bytes: number): Promise<void>;
  /**
   * A short-lived URL from which anyone may GET the blob directly, when the store can make one (S3 presigned
   * URLs); undefined when it cannot (local folder).
   */
  directUrl?(sha256: string, opts: { expiresInSeconds: number; contentType: string; contentDisposition?: string }): Promise<string>;
  /**
   * The path of the blob's file when the store is a local folder (ffmpeg reads an upload's length there,
   * src/files/ingest.ts); stores without one leave it out.
   */
  localPath?(sha256: string): string;
  /** Releases connections (S3 client sockets). */
  close?(): void;
}

export class BlobMissingError extends Error {
  constructor(readonly sha256: string) {
    super(`blob ${sha256} is missing from the artifact store`);
  }
}

/** The store is out of room, or storing more would eat into the reserve kept free for the database. */
export class NoSpaceError extends Error {}

/** Whether an error says the filesystem is full (or the user's disk quota is). */
function isNoSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

const HEX64 = /^[0-9a-f]{64}$/;
/** How often a streamed write re-checks the free space (bytes written between two statfs calls). */
const RECHECK_BYTES = 4 * 1024 * 1024;
/** A temporary file this old is left over from a crash or a failed write, never one being written. */
const STALE_TMP_MS = 15 * 60_000;

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

/**
 * A folder of blobs. `reserveBytes` of its filesystem's free space are never used (issue 26, finding 5:
 * uploads filled the volume PostgreSQL lives on and took the whole service down): a write that would go
 * below it is refused before it starts and stopped while it streams; a write that fails (full disk,
 * a broken stream) leaves no temporary file behind, and temporary files left by a crash are removed
 * when a process opens the store.
 */
export class LocalBlobStore implements BlobStore {
  readonly where: string;

  constructor(private readonly root: string, private readonly opts: { reserveBytes?: number } = {}) {
    fs.mkdirSync(root, { recursive: true });
    this.where = root;
    this.removeStaleTemp();
  }

  /** Removes temporary files of writes that never finished (a crash, a kill); recent ones may be another process's, under way. */
  removeStaleTemp(now = Date.now()): number {
    let removed = 0;
    for (const name of fs.readdirSync(this.root)) {
      if (!name.endsWith('.tmp')) continue;
      const p = path.join(this.root, name);
      try {
        if (now - fs.statSync(p).mtimeMs > STALE_TMP_MS) {
          fs.rmSync(p, { force: true });
          removed++;
        }
      } catch { /* gone meanwhile */ }
    }
    return removed;
  }

  /** Free bytes of the store's filesystem for an unprivileged writer. */
  async freeBytes(): Promise<number> {
    const st = await fs.promises.statfs(this.root);
    return Number(st.bavail) * Number(st.bsize);
  }

  async ensureRoom(bytes: number): Promise<void> {
    const reserve = this.opts.reserveBytes ?? 0;
    const free = await this.freeBytes();
    if (free - bytes < reserve) {
      throw new NoSpaceError(`the artifact store has ${mb(free)} MB free and keeps ${mb(reserve)} MB in reserve; ${mb(bytes)} MB more does not fit`);
    }
  }

  /** A pass-through that re-checks the free space every few MB, so writers that started together cannot all eat into the reserve. */
  private roomGuard(): Transform {
    let sinceCheck = 0;
    return new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        sinceCheck += chunk.length;
        if (sinceCheck < RECHECK_BYTES) return cb(null, chunk);
        sinceCheck = 0;
        this.ensureRoom(0).then(() => cb(null, chunk), cb);
      },
    });
  }

  localPath(sha256: string): string {
    return this.pathOf(sha256);
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
    // Write then rename, so a crash never leaves a truncated blob under a valid hash; a failed write leaves nothing.
    const tmp = this.tmpName();
    try {
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, target);
      return sha;
    } catch (err) {
      throw isNoSpace(err) ? new NoSpaceError('the artifact store\'s disk is full') : err;
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }

  async putStream(source: Readable): Promise<{ sha256: string; bytes: number }> {
    const tmp = this.tmpName();
    const hasher = hashingStream();
    try {
      await pipeline(source, hasher, ...(this.opts.reserveBytes ? [this.roomGuard()] : []), fs.createWriteStream(tmp));
      const got = hasher.digest();
      const target = this.pathOf(got.sha256);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(tmp, target);
      return got;
    } catch (err) {
      throw isNoSpace(err) ? new NoSpaceError('the artifact store\'s disk is full') : err;
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

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
