import type { Db } from '../db/pool.js';

// The SQL of web/ (owner of web_sessions and web_login_attempts, src/app/tableOwners.json), as typed functions.

const INSERT_SESSION = `INSERT INTO web_sessions (id, token_hash, user_id, csrf_token, expires_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`;

/** A live session by the hash of its cookie token; touches last_seen_at at most once a minute. */
const SESSION_BY_HASH = `UPDATE web_sessions SET last_seen_at = CASE WHEN last_seen_at < now() - interval '1 minute' THEN now() ELSE last_seen_at END
  WHERE token_hash = $1 AND expires_at > now()
  RETURNING id, user_id, csrf_token, token_hash`;

const DELETE_SESSION = `DELETE FROM web_sessions WHERE id = $1`;
const DELETE_EXPIRED_SESSIONS = `DELETE FROM web_sessions WHERE expires_at <= now()`;

/**
 * Counts one sign-in attempt for (email, ip) in a fixed window and returns the count including this one.
 * The upsert serialises concurrent attempts on the row, so no more than the limit are ever admitted,
 * whichever API process they reach. $3 = window length in seconds.
 */
const COUNT_ATTEMPT = `INSERT INTO web_login_attempts (email, ip, window_start, attempts) VALUES ($1, $2, now(), 1)
  ON CONFLICT (email, ip) DO UPDATE SET
    attempts = CASE WHEN web_login_attempts.window_start > now() - make_interval(secs => $3) THEN web_login_attempts.attempts + 1 ELSE 1 END,
    window_start = CASE WHEN web_login_attempts.window_start > now() - make_interval(secs => $3) THEN web_login_attempts.window_start ELSE now() END
  RETURNING attempts, GREATEST(0, ceil(extract(epoch FROM window_start + make_interval(secs => $3) - now())))::int AS retry_after`;

/** A successful sign-in's attempt no longer counts against its address. */
const GIVE_BACK_ATTEMPT = `UPDATE web_login_attempts SET attempts = GREATEST(0, attempts - 1) WHERE email = $1 AND ip = $2`;
const CLEAR_ATTEMPTS = `DELETE FROM web_login_attempts WHERE email = $1 AND ip = $2`;
const DELETE_STALE_ATTEMPTS = `DELETE FROM web_login_attempts WHERE window_start < now() - make_interval(secs => $1)`;

export async function insertSession(db: Db, s: { id: string; tokenHash: Buffer; userId: string; csrfToken: string; seconds: number }): Promise<void> {
  await db.query(INSERT_SESSION, [s.id, s.tokenHash, s.userId, s.csrfToken, s.seconds]);
}

/** The live session of a token hash (its last_seen_at touched), or undefined. */
export async function sessionByHash(db: Db, tokenHash: Buffer): Promise<{ id: string; userId: string; csrfToken: string } | undefined> {
  const row = (await db.query<{ id: string; user_id: string; csrf_token: string }>(SESSION_BY_HASH, [tokenHash])).rows[0];
  return row ? { id: row.id, userId: row.user_id, csrfToken: row.csrf_token } : undefined;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.query(DELETE_SESSION, [id]);
}

export async function deleteExpiredSessions(db: Db): Promise<void> {
  await db.query(DELETE_EXPIRED_SESSIONS);
}

/** Counts one attempt of (email, ip) in its window: the count including this one and the seconds until the window ends. */
export async function countAttempt(db: Db, email: string, ip: string, windowSeconds: number): Promise<{ attempts: number; retryAfter: number }> {
  const row = (await db.query<{ attempts: number; retry_after: number }>(COUNT_ATTEMPT, [email, ip, windowSeconds])).rows[0]!;
  return { attempts: row.attempts, retryAfter: row.retry_after };
}

export async function giveBackAttempt(db: Db, email: string, ip: string): Promise<void> {
  await db.query(GIVE_BACK_ATTEMPT, [email, ip]);
}

export async function clearAttempts(db: Db, email: string, ip: string): Promise<void> {
  await db.query(CLEAR_ATTEMPTS, [email, ip]);
}

export async function deleteStaleAttempts(db: Db, windowSeconds: number): Promise<void> {
  await db.query(DELETE_STALE_ATTEMPTS, [windowSeconds]);
}
