import crypto from 'node:crypto';
import { randomBase62 } from '../ids.js';

/** `gx_` + 40 base62 characters (~238 bits). Pure helpers: no I/O. */
export const KEY_PREFIX = 'gx_';
const BODY_LENGTH = 40;
const KEY_PATTERN = /^gx_[0-9A-Za-z]{32,128}$/;

export function generateKey(): string {
  return KEY_PREFIX + randomBase62(BODY_LENGTH);
}

export function looksLikeKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** The part shown in listings: the first 8 characters after `gx_`. */
export function visiblePrefix(key: string): string {
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8);
}

export function hashKey(key: string): Buffer {
  // The one-shot form: every authenticated request hashes its key, and it is half the cost of a Hash object.
  return crypto.hash('sha256', key, 'buffer');
}

/** Constant-time comparison of two key hashes. */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
