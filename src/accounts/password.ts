import crypto from 'node:crypto';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';

// N=2^15, r=8, p=1: ~32 MiB and tens of milliseconds here, OWASP's recommended floor for scrypt.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LEN = 32;

/**
 * Password hashing runs on its own small worker-thread pool, not through crypto.scrypt's async form: that
 * one borrows libuv's thread pool (4 threads), which file reads and writes share, so a burst of sign-ins
 * (even with made-up emails, which still cost one hash) would stall every file download. Here at most
 * HASH_THREADS hashes run at once and at most HASH_QUEUE sign-ins wait; past that a sign-in is told to
 * retry. Creating a user (an operator's command) waits its turn instead.
 */
export const HASH_THREADS = 1;
export const HASH_QUEUE = 32;
let pool: Piscina | undefined;
const stats = { refused: 0 };

function hashPool(): Piscina {
  // Idle threads exit after a while, so a process that stops signing people in holds no thread.
  return (pool ??= new Piscina({
    filename: new URL('./scryptThread.mjs', import.meta.url).href,
    minThreads: 0, maxThreads: HASH_THREADS, idleTimeout: 30_000, concurrentTasksPerWorker: 1,
  }));
}

/** The hashing pool's threads and queue now, and how many hashes were refused for a full queue. */
export function hashingStats(): { threads: number; queued: number; refused: number } {
  return { threads: pool?.threads.length ?? 0, queued: pool?.queueSize ?? 0, refused: stats.refused };
}

async function scrypt(password: string, salt: Buffer, keyLen: number, params: crypto.ScryptOptions, refuseWhenBusy: boolean): Promise<Buffer> {
  const p = hashPool();
  if (refuseWhenBusy && p.queueSize >= HASH_QUEUE) {
    stats.refused++;
    throw new AppError('SERVICE_UNAVAILABLE', 'Too many sign-ins at once; try again in a moment', { headers: { 'Retry-After': '2' } });
  }
  const out = await p.run({ password, salt, keyLen, params });
  return Buffer.from(out as Uint8Array);
}

/** `scrypt$N$r$p$salt$hash` (base64url), so parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LEN, PARAMS, false);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, saltB64, hashB64] = stored.split('$');
  if (alg !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64url');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64url'), expected.length, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024,
  }, true);
  return crypto.timingSafeEqual(actual, expected);
}
