import crypto from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types-runs.js';

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest allowed distance between the webhook timestamp and now (default 300 s): limits replays. */
  toleranceSeconds?: number;
  /** Current time in seconds (tests). */
  nowSeconds?: number;
}

// Standard Webhooks names first; svix and hook are the same scheme under other names.
const PREFIXES = ['webhook', 'svix', 'hook'];

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v[0] : v;
}

function secretBytes(secret: string): Buffer {
  // Secrets are `whsec_` + base64; accept the bare base64 too, as the standardwebhooks libraries do.
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * Verifies a Standard Webhooks delivery and returns its parsed payload, or throws
 * WebhookVerificationError. Pass the raw body exactly as received: re-serialised JSON will not match.
 * `secret` may list several secrets (yours during your own rotation); any match passes.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderSource, secret: string | string[], opts: VerifyOptions = {}): WebhookEvent {
  let id: string | undefined;
  let ts: string | undefined;
  let sigs: string | undefined;
  for (const p of PREFIXES) {
    id = header(headers, `${p}-id`);
    ts = header(headers, `${p}-timestamp`);
    sigs = header(headers, `${p}-signature`);
    if (id && ts && sigs) break;
  }
  if (!id || !ts || !sigs) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(ts)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? 300)) throw new WebhookVerificationError('webhook timestamp is outside the tolerance');

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${ts}.`, 'utf8'), body]);
  const expected = (Array.isArray(secret) ? secret : [secret]).map((s) => crypto.createHmac('sha256', secretBytes(s)).update(signed).digest());
  const given = sigs.split(' ').flatMap((s) => {
    const [version, mac] = s.split(',');
    return version === 'v1' && mac ? [Buffer.from(mac, 'base64')] : [];
  });
  // Compare every pair without stopping early, so timing says nothing about which signature matched.
  let ok = false;
  for (const g of given) for (const e of expected) if (g.length === e.length && crypto.timingSafeEqual(g, e)) ok = true;
  if (!ok) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('signed body is not JSON');
  }
}
