import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { esrganEngine } from '../../../src/engines/local/image/ml/esrgan.js';
import { testContext } from '../../helpers/engineContext.js';
import { files, png, run, shapesPng } from './fixtures.js';

after(() => closeThreadPools());

/** Mean absolute difference per channel between the upscale and a Lanczos resize of the same input. */
async function diffFromLanczos(input: Buffer, output: Buffer): Promise<number> {
  const m = await sharp(output).metadata();
  const a = await sharp(output).removeAlpha().raw().toBuffer();
  const b = await sharp(input).removeAlpha().resize(m.width, m.height, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe('esrgan_upscale (UpscalerJS ESRGAN on tfjs WASM)', () => {
  // Tiles are 192 px, so 200×150 exercises tiling and the seams between tiles.
  const input = shapesPng(200, 150);

  for (const scale of [2, 3, 4]) {
    it(`slim weights upscale ×${scale}`, async (t) => {
      const started = Date.now();
      const { out } = await run(esrganEngine, { image_url: png(input), scale }, { size: 'slim' });
      const f = files(out)[0]!;
      assert.deepEqual([f.width, f.height], [200 * scale, 150 * scale]);
      const m = await sharp(f.data).metadata();
      assert.deepEqual([m.width, m.height, m.format], [200 * scale, 150 * scale, 'png']);
      const diff = await diffFromLanczos(input, f.data);
      assert.ok(diff < 12, `the picture is the same picture, larger (mean diff ${diff.toFixed(2)})`);
      t.diagnostic(`esrgan slim ×${scale} on 200×150: ${Date.now() - started} ms`);
    });
  }

  it('medium weights upscale ×2 and keep transparency', async (t) => {
    const withAlpha = await sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: await sharp({ create: { width: 32, height: 24, channels: 4, background: '#3366ffff' } }).png().toBuffer(), left: 16, top: 12 }])
      .png().toBuffer();
    const started = Date.now();
    const { out } = await run(esrganEngine, { image_url: png(withAlpha), scale: 2 }, { size: 'medium' });
    const f = files(out)[0]!;
    assert.deepEqual([f.width, f.height], [128, 96]);
    const { data } = await sharp(f.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.equal(data[3], 0, 'the transparent corner stays transparent');
    assert.equal(data[(48 * 128 + 64) * 4 + 3], 255, 'the opaque centre stays opaque');
    t.diagnostic(`esrgan medium ×2 on 64×48: ${Date.now() - started} ms`);
  });

  it('refuses images over the size limit', async () => {
    const big = await sharp({ create: { width: 1100, height: 1000, channels: 3, background: '#808080' } }).png().toBuffer();
    await assert.rejects(run(esrganEngine, { image_url: png(big), scale: 2 }, { size: 'slim' }), EngineInputError);
  });

  // Without the abort this 4× medium upscale completes and resolves, so the rejection is what shows the stop.
  it('stops when the run is cancelled', async () => {
    const controller = new AbortController();
    const { ctx, cleanup } = testContext({ signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    try {
      await assert.rejects(esrganEngine.execute({ nodeType: 'esrgan_upscale', subModelId: 'esrgan-upscale-medium', input: { image_url: png(shapesPng(400, 300)), scale: 4 }, options: { size: 'medium' } }, ctx), /aborted/);
    } finally {
      cleanup();
    }
  });
});
