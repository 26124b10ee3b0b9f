import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { mediaDimensions } from '../../../src/files/dimensions.js';
import { sniffContentType } from '../../../src/engines/media.js';

// upload_file reports an image's size from its header bytes (src/files/dimensions.ts); sharp, a real
// encoder, makes the files, so the headers are what real images carry.
test('width and height of PNG, JPEG (baseline and progressive), GIF and WebP (lossy, lossless, extended)', async () => {
  const base = sharp({ create: { width: 37, height: 21, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 0.5 } } });
  const files: Array<[string, Buffer]> = [
    ['png', await base.clone().png().toBuffer()],
    ['jpeg', await base.clone().jpeg().toBuffer()],
    ['progressive jpeg', await base.clone().jpeg({ progressive: true }).toBuffer()],
    ['gif', await base.clone().gif().toBuffer()],
    ['webp lossy', await base.clone().webp({ quality: 50 }).toBuffer()],
    ['webp lossless', await base.clone().webp({ lossless: true }).toBuffer()],
    ['webp with alpha (VP8X)', await base.clone().webp({ quality: 50, alphaQuality: 50 }).toBuffer()],
  ];
  for (const [name, bytes] of files) {
    assert.deepEqual(mediaDimensions(bytes, sniffContentType(bytes)), { width: 37, height: 21 }, name);
  }
});

test('unknown or truncated headers give null, never a throw', () => {
  assert.equal(mediaDimensions(Buffer.from('RIFF0000WAVE'), 'audio/wav'), null);
  assert.equal(mediaDimensions(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'), null);
  assert.equal(mediaDimensions(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 1]), 'image/jpeg'), null);
  assert.equal(mediaDimensions(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 1, 2, 3, 4, 5, 6, 7]), 'image/jpeg'), null);
  assert.equal(mediaDimensions(Buffer.alloc(40), 'image/webp'), null);
});
