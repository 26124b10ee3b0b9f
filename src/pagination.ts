import { AppError } from './errors.js';

/**
 * Keyset cursors for lists ordered by (time DESC, id DESC): opaque base64url of [ISO time, id]. Pure.
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

/** [time, id], or [null, null] for the first page; a cursor this API did not issue is a 400. */
export function decodeCursor(cursor: string | undefined): [Date, string] | [null, null] {
  if (cursor === undefined) return [null, null];
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    const at = new Date(String(t));
    if (Number.isNaN(at.getTime()) || typeof id !== 'string') throw new Error('bad cursor');
    return [at, id];
  } catch {
    throw new AppError('VALIDATION_ERROR', 'cursor is not one this API returned', { details: [{ path: 'query.cursor', message: 'is invalid' }] });
  }
}

/** Splits a `limit + 1` query result into the page and the next cursor. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number, timeOf: (row: T) => Date): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(timeOf(last), last.id) : null };
}
