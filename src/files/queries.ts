import type { Queryable } from '../db/pool.js';
import { rowOf, rowsOf } from '../db/typed.js';

/**
 * SQL of the media library and of direct uploads (the files/ module owns files, file_reservations and
 * direct_uploads, server_secrets: src/app/tableOwners.json), and of the file service (service.ts).
 */

/** What the media library lists (GET /v1/files filters). */
export interface LibraryFilter {
  /** Media family of the content type. */
  kind?: 'image' | 'audio' | 'video';
  /** upload: stored by the account (no run); output: written by one of its runs. */
  source?: 'upload' | 'output';
  runId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  cursor?: string;
  limit: number;
}

/** A `files` row as `SELECT *` answers it (bytes is int8, so bigint: db/pool.ts sets that parser). */
export interface FileRow {
  id: string; account_id: string; sha256: string; content_type: string; bytes: bigint; filename: string | null;
  width: number | null; height: number | null; duration_seconds: number | null; run_id: string | null;
  created_at: Date; expires_at: Date | null;
}

/** A `files` row with its created_at as exact text (the library cursor's time). */
export interface LibraryRow extends FileRow {
  created_text: string;
}

/** Up to `limit` live files of the account, newest first, after the cursor position. */
export async function libraryPage(db: Queryable, accountId: string, f: LibraryFilter, after: [string, string] | [null, null], limit: number): Promise<LibraryRow[]> {
  return rowsOf<LibraryRow>(db,
    `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_text FROM files
      WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > now())
        AND ($2::text IS NULL OR content_type LIKE $2 || '/%')
        AND ($3::text IS NULL OR ($3 = 'upload' AND run_id IS NULL) OR ($3 = 'output' AND run_id IS NOT NULL))
        AND ($4::text IS NULL OR run_id = $4)
        AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6)
        AND ($7::text IS NULL OR (created_at, id) < ($7::timestamptz, $8::text))
      ORDER BY created_at DESC, id DESC LIMIT $9`,
    [accountId, f.kind ?? null, f.source ?? null, f.runId ?? null, f.createdAfter ?? null, f.createdBefore ?? null, after[0], after[1], limit],
  );
}

export interface DirectUploadRow {
  reservation_id: string; object_key: string; s3_upload_id: string; bytes: string; declared_type: string | null; filename: string | null;
}

export async function insertDirectUpload(db: Queryable, u: { id: string; accountId: string; reservation: string; key: string; s3UploadId: string; bytes: number; partBytes: number; contentType: string | null; filename: string | null; ttlSeconds: number }): Promise<{ expires_at: Date }> {
  const row = await rowOf<{ expires_at: Date }>(db,
    `INSERT INTO direct_uploads (id, account_id, reservation_id, object_key, s3_upload_id, bytes, part_bytes, declared_type, filename, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10)) RETURNING expires_at`,
    [u.id, u.accountId, u.reservation, u.key, u.s3UploadId, u.bytes, u.partBytes, u.contentType, u.filename, u.ttlSeconds],
  );
  return row!;
}

/** Takes (deletes) a live direct upload of the account, so two completions cannot both register it. */
export async function takeDirectUpload(db: Queryable, accountId: string, id: string): Promise<DirectUploadRow | undefined> {
  return rowOf<DirectUploadRow>(db, `DELETE FROM direct_uploads WHERE id = $1 AND account_id = $2 AND expires_at > now() RETURNING *`, [id, accountId]);
}

// --- the file service (service.ts) -------------------------------------------------------------------

/** The key that signs file URLs, made once per deployment (the first process to start wins). */
export const CREATE_URL_KEY = `INSERT INTO server_secrets (name, value) VALUES ('file_url_key', $1) ON CONFLICT DO NOTHING`;
export const URL_KEY = `SELECT value FROM server_secrets WHERE name = 'file_url_key'`;
/** A file row; $11 retention seconds (0: kept until deleted). */
export const INSERT_FILE = `INSERT INTO files (id, account_id, sha256, content_type, bytes, filename, width, height, duration_seconds, run_id, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $11::int > 0 THEN now() + make_interval(secs => $11) END) RETURNING *`;
/** Serialises an account's quota checks (held to the end of the transaction). */
export const LOCK_QUOTA = `SELECT pg_advisory_xact_lock(hashtext('file_quota:' || $1))`;
/** Bytes an upload in progress holds against the quota, for $4 seconds. */
export const RESERVE_BYTES = `INSERT INTO file_reservations (id, account_id, bytes, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`;
export const DROP_RESERVATION = `DELETE FROM file_reservations WHERE id = $1`;
/** An account's uploads in the last minute (its upload rate). */
export const RECENT_UPLOADS = `SELECT count(*)::int AS n FROM files WHERE account_id = $1 AND run_id IS NULL AND created_at > now() - interval '1 minute'`;
/** What an account stores: its live files and the bytes its uploads in progress reserve. */
export const USED_BYTES = `SELECT (SELECT COALESCE(sum(bytes), 0) FROM files WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > now()))
  + (SELECT COALESCE(sum(bytes), 0) FROM file_reservations WHERE account_id = $1 AND expires_at > now()) AS used`;
export const DELETE_FILE = `DELETE FROM files WHERE id = $1 AND account_id = $2 RETURNING sha256`;
/** Whether any file row still names a blob. */
export const BLOB_IN_USE = `SELECT 1 FROM files WHERE sha256 = $1 LIMIT 1`;
export const LIVE_FILE = `SELECT * FROM files WHERE id = $1 AND (expires_at IS NULL OR expires_at > now())`;
/** The blobs live files name, newest first, each with its files (the doctor's missing-blob check). */
export const LIVE_BLOBS = `SELECT sha256, array_agg(id ORDER BY id) AS ids, min(account_id) AS account_id, max(created_at) AS newest FROM files
  WHERE expires_at IS NULL OR expires_at > now() GROUP BY sha256 ORDER BY newest DESC LIMIT $1`;
export const DROP_EXPIRED_RESERVATIONS = `DELETE FROM file_reservations WHERE expires_at <= now()`;
export const DROP_EXPIRED_DIRECT_UPLOADS = `DELETE FROM direct_uploads WHERE expires_at <= now()`;
export const DROP_EXPIRED_FILES = `DELETE FROM files WHERE expires_at IS NOT NULL AND expires_at <= now() RETURNING sha256`;
