import crypto from 'node:crypto';
import type { Db } from '../db/pool.js';
import type { AccountService, User } from '../accounts/service.js';
import { newId, randomBase62 } from '../ids.js';
import * as q from './queries.js';

export const SESSION_COOKIE = 'atelier_session';
export const SESSION_SECONDS = 7 * 86_400;
/** Sign-in attempts admitted per (email, client address) per window. */
export const LOGIN_LIMIT = { attempts: 5, windowSeconds: 15 * 60 };
/**
 * Failed sign-ins admitted per client address across all emails per window (a success gives its attempt
 * back). Checked before the password is hashed, so a flood of made-up emails costs one row update each.
 */
export const ADDRESS_LIMIT = { attempts: 30, windowSeconds: 15 * 60 };
/** The attempts table's email for an address's count over all emails (emails are trimmed, so never this). */
const ANY_EMAIL = ' any';

export interface WebSession {
  id: string;
  userId: string;
  csrfToken: string;
}

export type SignInResult =
  | { ok: true; user: User; token: string; session: WebSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'limited'; scope: 'email' | 'address'; retryAfterSeconds: number };

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest();

/** Web sign-in sessions and the sign-in attempt limit, all in PostgreSQL (any number of API processes). */
export class WebSessions {
  constructor(private readonly db: Db, private readonly accounts: AccountService) {}

  /**
   * Checks the password, counting the attempt first: over the limit, the password is not even checked.
   * A success clears the count and opens a session.
   */
  async signIn(email: string, password: string, ip: string): Promise<SignInResult> {
    // PostgreSQL text cannot hold NUL; control characters never belong to an email anyway.
    const who = email.replace(/\p{Cc}/gu, '').trim().toLowerCase().slice(0, 254);
    const address = await q.countAttempt(this.db, ANY_EMAIL, ip, ADDRESS_LIMIT.windowSeconds);
    if (address.attempts > ADDRESS_LIMIT.attempts) return { ok: false, reason: 'limited', scope: 'address', retryAfterSeconds: Math.max(1, address.retryAfter) };
    const counted = await q.countAttempt(this.db, who, ip, LOGIN_LIMIT.windowSeconds);
    if (counted.attempts > LOGIN_LIMIT.attempts) return { ok: false, reason: 'limited', scope: 'email', retryAfterSeconds: Math.max(1, counted.retryAfter) };
    const user = await this.accounts.checkPassword(email, password);
    if (!user) return { ok: false, reason: 'invalid' };
    await q.clearAttempts(this.db, who, ip);
    await q.giveBackAttempt(this.db, ANY_EMAIL, ip);
    // Housekeeping rides along with sign-ins, which are rare enough to carry it.
    await q.deleteExpiredSessions(this.db);
    await q.deleteStaleAttempts(this.db, LOGIN_LIMIT.windowSeconds);
    const { token, session } = await this.open(user.id);
    return { ok: true, user, token, session };
  }

  /** A new session for the user; the token goes into the cookie and only its hash into the table. */
  async open(userId: string): Promise<{ token: string; session: WebSession }> {
    const token = randomBase62(43);
    const session = { id: newId('wses'), userId, csrfToken: randomBase62(32) };
    await q.insertSession(this.db, { id: session.id, tokenHash: hashToken(token), userId, csrfToken: session.csrfToken, seconds: SESSION_SECONDS });
    return { token, session };
  }

  /** The live session a cookie token belongs to, or undefined (unknown, expired or signed out). */
  async resolve(token: string | undefined): Promise<WebSession | undefined> {
    if (!token || !/^[0-9A-Za-z]{20,100}$/.test(token)) return undefined;
    return q.sessionByHash(this.db, hashToken(token));
  }

  async close(sessionId: string): Promise<void> {
    await q.deleteSession(this.db, sessionId);
  }
}
