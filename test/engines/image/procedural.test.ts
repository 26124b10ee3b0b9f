import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as jsqr from 'jsqr';
import sharp from 'sharp';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { patternEngine } from '../../../src/engines/local/image/procedural/pattern.js';
import { PATTERN_STYLES } from '../../../src/engines/local/image/procedural/pattern.work.js';
import { posterEngine } from '../../../src/engines/local/image/procedural/poster.js';
import { POSTER_STYLES } from '../../../src/engines/local/image/procedural/poster.work.js';
import { qrEngine } from '../../../src/engines/local/image/procedural/qrCode.js';
import { files, meta, run } from './fixtures.js';

after(() => closeThreadPools());

// jsqr is a webpack-built CommonJS module: depending on the loader its function is `default` or `default.default`.
type Decode = (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null;
const jsqrModule = jsqr as unknown as { default: Decode | { default: Decode } };
const jsQR: Decode = typeof jsqrModule.default === 'function' ? jsqrModule.default : jsqrModule.default.default;

/** Share of pixels that differ from the most common colour: a blank canvas scores ~0. */
async function busyness(data: Buffer): Promise<number> {
  const { data: raw, info } = await sharp(data).removeAlpha().resize(128, 128, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<number, number>();
  for (let i = 0; i < raw.length; i += 3) {
    const k = (raw[i]! << 16) | (raw[i + 1]! << 8) | raw[i + 2]!;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return 1 - Math.max(...counts.values()) / (info.width * info.height);
}

describe('procedural text-to-image engines', () => {
  it('qr_code encodes text that a QR decoder reads back', async () => {
    const message = 'https://atelier.example/runs/42?ok=1';
    const { out } = await run(qrEngine, { text: message, size: 300, error_correction: 'Q', dark_color: '#102030', light_color: '#fffff0' });
    const f = files(out)[0]!;
    assert.deepEqual([f.width, f.height], [300, 300]);
    const { data, info } = await sharp(f.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const decoded = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height);
    assert.equal(decoded?.data, message);
    await assert.rejects(run(qrEngine, { text: 'x', dark_color: '#eeeeee', light_color: '#ffffff' }), EngineInputError);
    await assert.rejects(run(qrEngine, { text: 'y'.repeat(2000), size: 64 }), EngineInputError);
  });

  it('poster_render draws each style at the requested size, repeatably for a seed', async () => {
    for (const style of POSTER_STYLES) {
      const { out } = await run(posterEngine, { text: 'Atelier Summer Night', subtitle: 'June 21 · Pier 9', style, width: 360, height: 480, seed: 7 });
      const f = files(out)[0]!;
      assert.deepEqual([f.width, f.height], [360, 480], style);
      assert.ok((await busyness(f.data)) > 0.05, `${style} poster is not blank`);
    }
    const a = await run(posterEngine, { text: 'Same seed', style: 'swiss', width: 200, height: 260, seed: 11 });
    const b = await run(posterEngine, { text: 'Same seed', style: 'swiss', width: 200, height: 260, seed: 11 });
    assert.ok(files(a.out)[0]!.data.equals(files(b.out)[0]!.data));
    const two = await run(posterEngine, { text: 'Two', width: 200, height: 260, seed: 3, num_images: 2 });
    assert.equal(files(two.out).length, 2);
    assert.deepEqual(two.out.seed, { kind: 'number', value: 3 });
  });

  it('poster_render fails clearly on empty text', async () => {
    await assert.rejects(run(posterEngine, { text: '   ' }), /text is empty/);
  });

  it('pattern_art renders every style, same seed same picture, other seed another', async () => {
    for (const style of PATTERN_STYLES) {
      const { out } = await run(patternEngine, { style, width: 256, height: 192, seed: 5 });
      const f = files(out)[0]!;
      const m = await meta(f);
      assert.deepEqual([m.width, m.height, m.format], [256, 192, 'png'], style);
      assert.ok((await busyness(f.data)) > 0.1, `${style} pattern is not blank`);
    }
    const a = files((await run(patternEngine, { style: 'flow', width: 128, height: 128, seed: 99 })).out)[0]!;
    const b = files((await run(patternEngine, { style: 'flow', width: 128, height: 128, seed: 99 })).out)[0]!;
    const c = files((await run(patternEngine, { style: 'flow', width: 128, height: 128, seed: 100 })).out)[0]!;
    assert.ok(a.data.equals(b.data));
    assert.ok(!a.data.equals(c.data));
  });
});
