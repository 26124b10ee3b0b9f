import crypto from 'node:crypto';

/**
 * Signed, expiring file URLs: `?exp=<unix seconds>&sig=<base64url HMAC-SHA256 of "path\nexp">`. Pure:
 * the key is passed in. Anyone holding the URL can download until it expires, without an API key.
 */
export function signPath(key: Buffer, pathname: string, exp: number): string {
  return crypto.createHmac('sha256', key).update(`${pathname}\n${exp}`).digest('base64url');
}

export function verifySignedPath(key: Buffer, pathname: string, exp: string | undefined, sig: string | undefined, nowSeconds: number): boolean {
  if (!exp || !sig || !/^\d{1,12}$/.test(exp)) return false;
  if (Number(exp) < nowSeconds) return false;
  const expected = Buffer.from(signPath(key, pathname, Number(exp)));
  const given = Buffer.from(sig);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
