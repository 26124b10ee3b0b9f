export const INSERT_SESSION = `INSERT INTO web_sessions (id, token_hash, user_id, csrf_token, expires_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`;

/** A live session by the hash of its cookie token; touches last_seen_at at most once a minute. */
export const SESSION_BY_HASH = `UPDATE web_sessions SET last_seen_at = CASE WHEN last_seen_at < now() - interval '1 minute' THEN now() ELSE last_seen_at END
  WHERE token_hash = $1 AND expires_at > now()
  RETURNING id, user_id, csrf_token, token_hash`;

export const DELETE_SESSION = `DELETE FROM web_sessions WHERE id = $1`;
export const DELETE_EXPIRED_SESSIONS = `DELETE FROM web_sessions WHERE expires_at <= now()`;

/**
 * Counts one sign-in attempt for (email, ip) in a fixed window and returns the count including this one.
 * The upsert serialises concurrent attempts on the row, so no more than the limit are ever admitted,
 * whichever API process they reach. $3 = window length in seconds.
 */
export const COUNT_ATTEMPT = `INSERT INTO web_login_attempts (email, ip, window_start, attempts) VALUES ($1, $2, now(), 1)
  ON CONFLICT (email, ip) DO UPDATE SET
    attempts = CASE WHEN web_login_attempts.window_start > now() - make_interval(secs => $3) THEN web_login_attempts.attempts + 1 ELSE 1 END,
    window_start = CASE WHEN web_login_attempts.window_start > now() - make_interval(secs => $3) THEN web_login_attempts.window_start ELSE now() END
  RETURNING attempts, GREATEST(0, ceil(extract(epoch FROM window_start + make_interval(secs => $3) - now())))::int AS retry_after`;

/** A successful sign-in's attempt no longer counts against its address. */
export const GIVE_BACK_ATTEMPT = `UPDATE web_login_attempts SET attempts = GREATEST(0, attempts - 1) WHERE email = $1 AND ip = $2`;
export const CLEAR_ATTEMPTS = `DELETE FROM web_login_attempts WHERE email = $1 AND ip = $2`;
export const DELETE_STALE_ATTEMPTS = `DELETE FROM web_login_attempts WHERE window_start < now() - make_interval(secs => $1)`;
