import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Db, Queryable } from '../db/pool.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { FileOutput } from '../engines/types.js';
import { BlobMissingError, NoSpaceError, type BlobStore } from './blobStore.js';
import { signPath, verifySignedPath } from './signing.js';
import { listFiles, type LibraryFilter } from './library.js';
import { contentDisposition } from './servePolicy.js';

export { fileRecordOf, type FileRecord } from './record.js';
import { fileRecordOf, type FileRecord } from './record.js';
import * as q from './queries.js';
import { countOf, rowOf, rowsOf } from '../db/typed.js';

/** What run outputs show of a file (the `files[]` of src/contract/runs.ts). */
export interface FileView {
  id: string;
  url: string;
  contentType: string;
  bytes: number;
  filename?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}


/** Artifacts: bytes in the blob store, metadata rows in PostgreSQL, signed URLs for sharing. */
export class FileService {
  private signingKey: Buffer | undefined;

  constructor(
    private readonly db: Db,
    readonly blobs: BlobStore,
    private readonly opts: {
      publicUrl: () => string; retentionSeconds: number; urlTtlSeconds: number;
      /** ATELIER_FILES_REDIRECT=presigned: signed downloads redirect to the store's own short-lived URL. */
      redirect?: 'none' | 'presigned'; redirectTtlSeconds?: number;
      /** Bytes of live files one account may hold (0 or absent: no quota). */
      quotaBytes?: number;
      /** Files one account may store outside a run (uploads) per minute (0 or absent: no limit). */
      uploadsPerMinute?: number;
    },
  ) {}

  /** The URL-signing key, shared by every process through the database (created once). */
  async key(): Promise<Buffer> {
    if (this.signingKey) return this.signingKey;
    await this.db.query(q.CREATE_URL_KEY, [crypto.randomBytes(32)]);
    this.signingKey = (await rowOf<{ value: Buffer }>(this.db, q.URL_KEY))!.value;
    return this.signingKey;
  }

  /**
   * Stores a file for an account: an engine's output (`runId`) or an upload (`runId` null). The one way
   * bytes enter the store, so every path (editor and MCP uploads, run outputs) meets the same limits
   * (issue 26, finding 5): uploads per minute (429), the account's storage quota (413
   * STORAGE_QUOTA_EXCEEDED), and the free space the store keeps in reserve (507 INSUFFICIENT_STORAGE,
   * also when the disk fills while writing). The blob is written first; the row may be in the caller's
   * transaction.
   */
  async save(tx: Queryable, accountId: string, out: FileOutput, runId: string | null): Promise<FileRecord> {
    const size = out.path ? (await fs.promises.stat(out.path)).size : out.data.length;
    await this.checkLimits(tx, accountId, size, runId);
    // An output written to a file (large media) streams to the store; it is never read into memory whole.
    const put = async () => {
      try {
        return out.path ? await this.blobs.putStream(fs.createReadStream(out.path)) : { sha256: await this.blobs.put(out.data), bytes: out.data.length };
      } catch (err) {
        if (err instanceof NoSpaceError) throw insufficientStorage(err.message);
        throw err;
      }
    };
    const { sha256: sha, bytes } = await put();
    const rec = await this.register(tx, accountId, { ...out, sha256: sha, bytes }, runId);
    // A sweep may have removed an identical, expired blob between put() and the insert: put it back.
    if (!(await this.blobs.has(sha))) await put();
    return rec;
  }

  /**
   * The metadata row of bytes already in the store (a streamed upload, src/files/ingest.ts): the same row
   * `save` writes, with the account's retention. Limits were checked when the upload reserved its room.
   */
  async register(tx: Queryable, accountId: string, f: Omit<FileOutput, 'kind' | 'data' | 'path'> & { sha256: string; bytes: number }, runId: string | null): Promise<FileRecord> {
    const r = await rowOf<q.FileRow>(
      tx, q.INSERT_FILE,
      [newId('file'), accountId, f.sha256, f.contentType, f.bytes, f.filename ?? null, f.width ?? null, f.height ?? null,
        f.durationSeconds ?? null, runId, this.opts.retentionSeconds],
    );
    return fileRecordOf(r!);
  }

  /**
   * Holds `bytes` of the account's quota for an upload whose bytes are still to arrive (streamed, or
   * presigned straight to the bucket), after the same checks `save` makes: uploads per minute, quota
   * (counting other uploads' holdings, so two uploads cannot both fit in the last free megabyte: the
   * check and the holding are one transaction under a per-account lock) and the store's reserve. Give it
   * back with `release` whatever the outcome; one left by a killed process lapses at `ttlSeconds`.
   */
  async reserve(accountId: string, bytes: number, ttlSeconds: number): Promise<string> {
    const id = newId('res');
    const client = await this.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(q.LOCK_QUOTA, [accountId]);
      await this.checkLimits(client, accountId, bytes, null);
      await client.query(q.RESERVE_BYTES, [id, accountId, bytes, ttlSeconds]);
      await client.query('COMMIT');
      return id;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async release(reservationId: string, tx: Queryable = this.db): Promise<void> {
    await tx.query(q.DROP_RESERVATION, [reservationId]);
  }

  /** The limits `save` enforces before a byte is written. */
  private async checkLimits(tx: Queryable, accountId: string, size: number, runId: string | null): Promise<void> {
    const perMinute = this.opts.uploadsPerMinute ?? 0;
    if (runId === null && perMinute > 0) {
      const recent = (await rowOf<{ n: number }>(
        tx, q.RECENT_UPLOADS, [accountId],
      ))!.n;
      if (recent >= perMinute) {
        throw new AppError('RATE_LIMITED', `at most ${perMinute} uploads a minute; try again shortly`, { headers: { 'retry-after': '60' } });
      }
    }
    const quota = this.opts.quotaBytes ?? 0;
    if (quota > 0) {
      const used = await this.usedBytes(accountId, tx);
      if (used + size > quota) {
        throw new AppError('STORAGE_QUOTA_EXCEEDED', `this account stores ${mib(used)} MiB of its ${mib(quota)} MiB quota; ${mib(size)} MiB more does not fit. Delete files (DELETE /v1/files/{fileId}) to make room`,
          { extra: { usedBytes: used, quotaBytes: quota } });
      }
    }
    try {
      await this.blobs.ensureRoom?.(size);
    } catch (err) {
      if (err instanceof NoSpaceError) throw insufficientStorage(err.message);
      throw err;
    }
  }

  /** Bytes of the account's live (unexpired) files. */
  async usedBytes(accountId: string, tx: Queryable = this.db): Promise<number> {
    // Uploads still arriving hold their room (file_reservations) until they are stored or given up.
    return Number((await rowOf<{ used: string }>(
      tx, q.USED_BYTES, [accountId],
    ))!.used);
  }

  /**
   * Deletes one of the account's files (404 for another account's): its row, then its blob unless another
   * row still refers to the same bytes. Runs that output it show it as gone, as after retention.
   */
  async remove(accountId: string, id: string): Promise<void> {
    if (!/^file_[0-9A-Za-z]{1,40}$/.test(id)) throw new AppError('NOT_FOUND', 'file not found');
    const gone = await rowOf<{ sha256: string }>(this.db, q.DELETE_FILE, [id, accountId]);
    if (!gone) throw new AppError('NOT_FOUND', 'file not found');
    const still = await countOf(this.db, q.BLOB_IN_USE, [gone.sha256]);
    if (!still) await this.blobs.remove(gone.sha256);
  }

  async get(id: string, tx: Queryable = this.db): Promise<FileRecord | undefined> {
    if (!/^file_[0-9A-Za-z]{1,40}$/.test(id)) return undefined;
    const r = await rowOf<q.FileRow>(tx, q.LIVE_FILE, [id]);
    return r ? fileRecordOf(r) : undefined;
  }

  /** A file visible to this account, or 404 (also for another account's file). */
  async getOwned(id: string, accountId: string): Promise<FileRecord> {
    const f = await this.get(id);
    if (!f || f.accountId !== accountId) throw new AppError('NOT_FOUND', 'file not found');
    return f;
  }

  /** The account's files, newest first, filtered and paged by an exact cursor (src/files/library.ts). */
  list(accountId: string, filter: LibraryFilter): Promise<{ files: FileRecord[]; nextCursor: string | null }> {
    return listFiles(this.db, accountId, filter);
  }

  /** A URL of the file that does not expire: it downloads with the owner's key, and the owner's runs take it as an input. */
  stableUrl(file: FileRecord): string {
    return this.stableUrlOf(file.id);
  }

  /** stableUrl by the file's id alone (a workflow node's input holds file references as ids). */
  stableUrlOf(fileId: string): string {
    return `${this.opts.publicUrl()}/v1/files/${fileId}`;
  }

  async signedUrl(file: FileRecord): Promise<string> {
    const pathname = `/v1/files/${file.id}`;
    let exp = Math.floor(Date.now() / 1000) + this.opts.urlTtlSeconds;
    if (file.expiresAt) exp = Math.min(exp, Math.floor(file.expiresAt.getTime() / 1000));
    return `${this.opts.publicUrl()}${pathname}?exp=${exp}&sig=${signPath(await this.key(), pathname, exp)}`;
  }

  async view(file: FileRecord): Promise<FileView> {
    return {
      id: file.id, url: await this.signedUrl(file), contentType: file.contentType, bytes: file.bytes,
      ...(file.filename ? { filename: file.filename } : {}),
      ...(file.width !== null ? { width: file.width } : {}),
      ...(file.height !== null ? { height: file.height } : {}),
      ...(file.durationSeconds !== null ? { durationSeconds: file.durationSeconds } : {}),
    };
  }

  async verify(id: string, exp: string | undefined, sig: string | undefined): Promise<boolean> {
    return verifySignedPath(await this.key(), `/v1/files/${id}`, exp, sig, Math.floor(Date.now() / 1000));
  }

  /** The file's bytes (or an inclusive range of them); NOT_FOUND when the store lost the blob (doctor reports it). */
  async open(file: FileRecord, range?: { start: number; end: number }): Promise<Readable> {
    try {
      return await this.blobs.read(file.sha256, range);
    } catch (err) {
      if (err instanceof BlobMissingError) throw new AppError('NOT_FOUND', 'the file\'s content is missing from the artifact store');
      throw err;
    }
  }

  /**
   * With ATELIER_FILES_REDIRECT=presigned and a store that can make one: a short-lived URL of the object
   * itself (never outliving the file's own expiry), else undefined.
   */
  async directUrl(file: FileRecord): Promise<string | undefined> {
    if (this.opts.redirect !== 'presigned' || !this.blobs.directUrl) return undefined;
    let ttl = this.opts.redirectTtlSeconds ?? 300;
    if (file.expiresAt) ttl = Math.min(ttl, Math.floor((file.expiresAt.getTime() - Date.now()) / 1000));
    if (ttl < 1) return undefined;
    // The object store's origin is not the app's, and its presigned answer cannot carry our CSP: active types still download.
    return this.blobs.directUrl(file.sha256, { expiresInSeconds: ttl, contentType: file.contentType, contentDisposition: contentDisposition(file.contentType, file.filename) });
  }

  /**
   * Metadata rows whose blob the store does not have (up to `limit` distinct blobs are checked, newest first):
   * what `atelier doctor` reports as missing artifacts.
   */
  async missingBlobs(limit = 10_000): Promise<Array<{ sha256: string; files: string[]; accountId: string }>> {
    const rows = await rowsOf<{ sha256: string; ids: string[]; account_id: string }>(
      this.db, q.LIVE_BLOBS, [limit],
    );
    const missing: Array<{ sha256: string; files: string[]; accountId: string }> = [];
    for (let i = 0; i < rows.length; i += 16) {
      const batch = rows.slice(i, i + 16);
      const present = await Promise.all(batch.map((r) => this.blobs.has(r.sha256)));
      batch.forEach((r, j) => {
        if (!present[j]) missing.push({ sha256: r.sha256, files: r.ids, accountId: r.account_id });
      });
    }
    return missing;
  }

  /** Deletes expired rows, then blobs no row refers to any more. Returns counts. */
  async sweep(): Promise<{ files: number; blobs: number }> {
    await this.db.query(q.DROP_EXPIRED_RESERVATIONS);
    // Direct uploads never completed: their incoming objects are the bucket's lifecycle rule's (docs/deploy.md).
    await this.db.query(q.DROP_EXPIRED_DIRECT_UPLOADS);
    const gone = (await rowsOf<{ sha256: string }>(this.db, q.DROP_EXPIRED_FILES)).map((r) => r.sha256);
    let blobs = 0;
    for (const sha of new Set(gone)) {
      const still = await countOf(this.db, q.BLOB_IN_USE, [sha]);
      if (!still) {
        await this.blobs.remove(sha);
        blobs++;
      }
    }
    return { files: gone.length, blobs };
  }
}

function insufficientStorage(detail: string): AppError {
  return new AppError('INSUFFICIENT_STORAGE', `the service is out of storage space for files (${detail}); try again later`, { headers: { 'retry-after': '60' } });
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
