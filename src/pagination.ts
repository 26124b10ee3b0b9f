import { FieldError } from './errors.js';

/**
 * Keyset cursors for lists ordered by (time DESC, id DESC): opaque base64url of [time, id]. Pure.
 *
 * The time is exact: PostgreSQL keeps microseconds, a JavaScript Date only milliseconds, so a cursor made
 * from a Date could skip the rows whose time falls inside the last row's millisecond (they compare below
 * the row's true time but above the truncated one). The list queries answer their order column as text at
 * full precision (cursorTimeSql) and the cursor carries that text. Cursors issued before, in milliseconds,
 * are still accepted.
 */

/** A list query's order column as exact UTC text for the cursor, e.g. `${cursorTimeSql('created_at')} AS cursor_at`. */
export function cursorTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{1,6}Z$/;

/** `at`: the exact time text (cursorTimeSql), or a Date (millisecond precision, for lists not yet exact). */
export function encodeCursor(at: Date | string, id: string): string {
  return Buffer.from(JSON.stringify([typeof at === 'string' ? at : at.toISOString(), id])).toString('base64url');
}

/** [time as timestamptz text, id], or [null, null] for the first page; a cursor this API did not issue is a 400. */
export function decodeCursor(cursor: string | undefined): [string, string] | [null, null] {
  if (cursor === undefined) return [null, null];
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof id !== 'string') throw new Error('bad cursor');
    if (typeof t === 'string' && EXACT_TIME.test(t)) return [t, id];
    const at = new Date(String(t));
    if (Number.isNaN(at.getTime())) throw new Error('bad cursor');
    return [at.toISOString(), id];
  } catch {
    throw new FieldError('VALIDATION_ERROR', 'cursor is not one this API returned', false, [{ path: 'cursor', message: 'is invalid' }]);
  }
}

/** Splits a `limit + 1` query result into the page and the next cursor. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number, timeOf: (row: T) => Date | string): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(timeOf(last), last.id) : null };
}
