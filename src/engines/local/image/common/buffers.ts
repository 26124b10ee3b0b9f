/**
 * Worker threads hand Buffers back as plain Uint8Arrays (structured clone drops the Buffer prototype);
 * wrap them again without copying.
 */
export function asBuffer(bytes: Uint8Array | Buffer): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
