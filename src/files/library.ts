import type { Queryable } from '../db/pool.js';
import { AppError } from '../errors.js';
import { fileRecordOf, type FileRecord } from './record.js';
import { libraryPage, type LibraryFilter } from './queries.js';

export type { LibraryFilter };

/**
 * The media library (GET /v1/files, MCP get_generations): an account's live files, uploads and run outputs,
 * newest first, with filters. The cursor is the last row's (created_at, id) with created_at written by
 * PostgreSQL at its full microsecond precision, so a page boundary never skips or repeats a file, even
 * among the files of one output that share a millisecond.
 */

function badCursor(): AppError {
  return new AppError('VALIDATION_ERROR', 'cursor is not one this API returned', { details: [{ path: 'query.cursor', message: 'is invalid' }] });
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** [created_at as text to the microsecond, id] of a cursor, or a 400 for one this API did not write. */
export function decodeLibraryCursor(cursor: string): [string, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !MICRO_TIME.test(v[0]) || typeof v[1] !== 'string' || v[1].length > 60) throw badCursor();
  return [v[0], v[1]];
}

export function encodeLibraryCursor(createdText: string, id: string): string {
  return Buffer.from(JSON.stringify([createdText, id])).toString('base64url');
}

export async function listFiles(db: Queryable, accountId: string, f: LibraryFilter): Promise<{ files: FileRecord[]; nextCursor: string | null }> {
  const after: [string, string] | [null, null] = f.cursor !== undefined ? decodeLibraryCursor(f.cursor) : [null, null];
  const rows = await libraryPage(db, accountId, f, after, f.limit + 1);
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return { files: page.map(fileRecordOf), nextCursor: rows.length > f.limit && last ? encodeLibraryCursor(last.created_text, last.id) : null };
}

/** A file as the library and the upload answers show it: the run-output view plus where it came from. */
export interface FileDocument {
  id: string;
  /** Signed: works without an API key until it expires. */
  url: string;
  /** Never expires: downloads with the owner's key, and the owner's runs take it as an input. */
  stableUrl: string;
  contentType: string;
  bytes: number;
  filename?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
  source: 'upload' | 'output';
  runId: string | null;
  createdAt: string;
  expiresAt: string | null;
}

export async function describeFile(files: { view(f: FileRecord): Promise<{ url: string }>; stableUrl(f: FileRecord): string }, f: FileRecord): Promise<FileDocument> {
  return {
    id: f.id, url: (await files.view(f)).url, stableUrl: files.stableUrl(f), contentType: f.contentType, bytes: f.bytes,
    ...(f.filename ? { filename: f.filename } : {}),
    ...(f.width !== null ? { width: f.width } : {}),
    ...(f.height !== null ? { height: f.height } : {}),
    ...(f.durationSeconds !== null ? { durationSeconds: f.durationSeconds } : {}),
    source: f.runId === null ? 'upload' : 'output', runId: f.runId,
    createdAt: f.createdAt.toISOString(), expiresAt: f.expiresAt ? f.expiresAt.toISOString() : null,
  };
}
