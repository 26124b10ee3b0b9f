/**
 * Width and height of an image read from its header bytes (PNG, GIF, JPEG, WebP), without decoding it:
 * upload answers report them, and the service process runs no image library. Null when unknown.
 */
export function mediaDimensions(b: Buffer, contentType: string): { width: number; height: number } | null {
  const ok = (w: number, h: number) => (w > 0 && h > 0 ? { width: w, height: h } : null);
  switch (contentType) {
    case 'image/png':
      // The IHDR chunk comes first: width and height at bytes 16 and 20.
      return b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR' ? ok(b.readUInt32BE(16), b.readUInt32BE(20)) : null;
    case 'image/gif':
      return b.length >= 10 ? ok(b.readUInt16LE(6), b.readUInt16LE(8)) : null;
    case 'image/webp':
      return webp(b, ok);
    case 'image/jpeg':
      return jpeg(b, ok);
    default:
      return null;
  }
}

type Ok = (w: number, h: number) => { width: number; height: number } | null;

function webp(b: Buffer, ok: Ok) {
  if (b.length < 30) return null;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return ok(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
  if (chunk === 'VP8 ') return ok(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return ok((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  return null;
}

function jpeg(b: Buffer, ok: Ok) {
  // Walk the marker segments to the first start-of-frame (SOF0–SOF15 but DHT, JPG and DAC).
  let pos = 2;
  while (pos + 9 < b.length) {
    if (b[pos] !== 0xff) return null;
    const marker = b[pos + 1]!;
    if (marker === 0xff) {
      pos++;
      continue;
    }
    const length = b.readUInt16BE(pos + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return ok(b.readUInt16BE(pos + 7), b.readUInt16BE(pos + 5));
    }
    if (length < 2) return null;
    pos += 2 + length;
  }
  return null;
}
