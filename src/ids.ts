import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG 4 kB at a time: every request takes a trace id, and one
// randomFillSync call per id cost more than the rest of id making (a system call each).
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** n uniformly random base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: bytes above would bias the low characters
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
