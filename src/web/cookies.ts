/** Reading the Cookie header and writing Set-Cookie values. Pure. */

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    // The first occurrence wins, as browsers send the most specific cookie first.
    if (name && !(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. Omitted, the cookie lasts for the browser session. */
  maxAge?: number;
  secure: boolean;
  httpOnly?: boolean;
}

/** Always `Path=/` and `SameSite=Lax`: the session cookie must not ride along on cross-site POSTs. */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`bad cookie name ${name}`);
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'SameSite=Lax'];
  if (opts.httpOnly !== false) parts.push('HttpOnly');
  if (opts.secure) parts.push('Secure');
  if (opts.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(opts.maxAge))}`);
  if (opts.maxAge === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  return parts.join('; ');
}
