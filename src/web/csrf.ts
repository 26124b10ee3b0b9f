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

const BASE = 'http://atelier.invalid';

/**
 * A `next` target after sign-in: a path on this site only. The raw value is refused outright when it holds
 * any control character (browsers drop tabs and newlines, so `/\t/host` would become `//host`); what is
 * left is resolved as a browser would, and kept only when it stays on this origin. The answer is the
 * normalised, percent-encoded path (always a valid header value), else the fallback.
 */
export function safeNextPath(next: unknown, fallback = '/runs'): string {
  if (typeof next !== 'string' || next.length > 2000 || !next.startsWith('/') || /[\p{Cc}\p{Cf}\p{Cs}\\]/u.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  const path = url.pathname + url.search + url.hash;
  if (!path.startsWith('/') || path.startsWith('//')) return fallback;
  if (path === '/login' || path.startsWith('/login?') || path.startsWith('/login/') || path.startsWith('/logout')) return fallback;
  return path;
}
