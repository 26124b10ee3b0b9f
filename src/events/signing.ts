import crypto from 'node:crypto';

/**
 * Standard Webhooks signatures (the scheme behind the spec's hook-id / hook-timestamp / hook-signature):
 * `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed with the bytes of the secret (the base64 after
 * `whsec_`). Pure: no I/O.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('webhook secrets start with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = crypto.createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The signature header: one `v1,…` per active secret, space-separated (during a rotation, new and old). */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' ');
}

/** The headers of one delivery, under both the Standard Webhooks and the svix names. */
export function deliveryHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = signatureHeader(secrets, id, timestampSeconds, body);
  const ts = String(timestampSeconds);
  return {
    'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature,
    'svix-id': id, 'svix-timestamp': ts, 'svix-signature': signature,
  };
}

/**
 * Receiver-side verification (used by the SDK and the example receiver): the timestamp within
 * `toleranceSeconds` of now, and any `v1` signature matching in constant time.
 */
export function verify(secret: string, headers: Record<string, string | undefined>, body: string, nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300): boolean {
  const id = headers['webhook-id'] ?? headers['svix-id'] ?? headers['hook-id'];
  const ts = headers['webhook-timestamp'] ?? headers['svix-timestamp'] ?? headers['hook-timestamp'];
  const sigs = headers['webhook-signature'] ?? headers['svix-signature'] ?? headers['hook-signature'];
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  if (Math.abs(nowSeconds - Number(ts)) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, id, Number(ts), body).slice(3), 'base64');
  return sigs.split(' ').some((s) => {
    const [version, mac] = s.split(',');
    if (version !== 'v1' || !mac) return false;
    const given = Buffer.from(mac, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}
