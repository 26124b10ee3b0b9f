import type { Queryable } from '../db/pool.js';
import { rowOf, rowsOf } from '../db/typed.js';

/**
 * SQL of the media library and of direct uploads (the files/ module owns files, file_reservations and
 * direct_uploads: src/app/tableOwners.json). The rest of files/ SQL still sits in service.ts (listed in
 * test/unit/architecture.test.ts until it moves here).
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

/** A `files` row with its created_at as exact text (the library cursor's time). */
export interface LibraryRow {
  id: string; account_id: string; sha256: string; content_type: string; bytes: string; filename: string | null;
  width: number | null; height: number | null; duration_seconds: number | null; run_id: string | null;
  created_at: Date; expires_at: Date | null; created_text: string;
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
