import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** n uniformly random base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of crypto.randomBytes(n * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: bytes above would bias the low characters
      if (out.length === n) break;
    }
  }
  return out;
}

/** Opaque ids with a readable kind prefix, e.g. `run_3xH…`. */
export function newId(kind: string): string {
  return `${kind}_${randomBase62(20)}`;
}

export function newTraceId(): string {
  return `req_${randomBase62(20)}`;
}
