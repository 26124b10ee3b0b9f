// Runs inside the password-hashing worker thread (src/accounts/password.ts): scrypt synchronously here, so
// the hashing occupies this thread only, never libuv's small shared pool that file reads and writes use.
import crypto from 'node:crypto';

export default function scrypt({ password, salt, keyLen, params }) {
  return crypto.scryptSync(password, Buffer.from(salt), keyLen, params);
}
