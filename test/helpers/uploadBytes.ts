import crypto from 'node:crypto';

/**
 * `bytes` bytes that an upload takes for a PNG: the PNG signature and a header chunk naming a 1×1 picture,
 * then random filler. Uploads are recognised by their bytes (src/files/upload.ts), so tests that only need
 * volume (quotas, a full disk) send these rather than random bytes, which are refused as no known format.
 */
export function pngSizedBytes(bytes: number): Buffer {
  const header = Buffer.alloc(8 + 25);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(1, 16);
  header.writeUInt32BE(1, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(6, 25);
  if (bytes <= header.length) return header.subarray(0, Math.max(bytes, 8));
  return Buffer.concat([header, crypto.randomBytes(bytes - header.length)]);
}
