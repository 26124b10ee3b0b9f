import crypto from 'node:crypto';

/**
 * Cross-site request checks for the web app's mutations. Pure. A request must carry the session's CSRF
 * token (form field or header) and, when the browser names its Origin, come from this site.
 */

export function tokensEqual(expected: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * The origins a mutation may come from: this request's own (scheme + Host) and PUBLIC_URL's. An absent
 * Origin is accepted (older browsers and non-browser clients omit it); the token check still applies.
 */
export function originAllowed(origin: string | undefined, own: { protocol: string; host: string | undefined }, publicUrl: string | undefined): boolean {
  if (origin === undefined) return true;
  const allowed = new Set<string>();
  if (own.host) allowed.add(`${own.protocol}://${own.host}`.toLowerCase());
  if (publicUrl) {
    try {
      allowed.add(new URL(publicUrl).origin.toLowerCase());
    } catch {
      // A malformed PUBLIC_URL allows nothing extra.
    }
  }
  return allowed.has(origin.toLowerCase());
}

/** A `next` target after sign-in: a path on this site only (never `//host` or a scheme). */
export function safeNextPath(next: unknown, fallback = '/runs'): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\r\n]/.test(next)) return fallback;
  if (next.startsWith('/login') || next.startsWith('/logout')) return fallback;
  return next.slice(0, 2000);
}
