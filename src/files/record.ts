import type { FileRow } from './queries.js';

/** A stored file as the files/ module hands it on: a `files` row read into camelCase. Pure. */
export interface FileRecord {
  id: string;
  accountId: string;
  sha256: string;
  contentType: string;
  bytes: number;
  filename: string | null;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  runId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
}

/** A `files` row as a record. */
export function fileRecordOf(r: FileRow): FileRecord {
  return {
    id: r.id, accountId: r.account_id, sha256: r.sha256, contentType: r.content_type, bytes: Number(r.bytes), filename: r.filename,
    width: r.width, height: r.height, durationSeconds: r.duration_seconds, runId: r.run_id, createdAt: r.created_at, expiresAt: r.expires_at,
  };
}
