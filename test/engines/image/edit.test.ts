import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { adjustEngine } from '../../../src/engines/local/image/edit/adjust.js';
import { blurEngine } from '../../../src/engines/local/image/edit/blur.js';
import { compositeEngine } from '../../../src/engines/local/image/edit/composite.js';
import { convertEngine } from '../../../src/engines/local/image/edit/convert.js';
import { cropEngine } from '../../../src/engines/local/image/edit/crop.js';
import { paletteEngine } from '../../../src/engines/local/image/edit/palette.js';
import { resizeEngine } from '../../../src/engines/local/image/edit/resize.js';
import { textOverlayEngine } from '../../../src/engines/local/image/edit/textOverlay.js';
import { dataUrl } from '../../helpers/engineContext.js';
import { files, meta, pixel, png, run, shapesPng, text } from './fixtures.js';

after(() => closeThreadPools());
const shapes = png(shapesPng());

describe('image utility engines (sharp, canvas)', () => {
  it('crop_image cuts a rectangle given in pixels, keyed image_url', async () => {
    const { out } = await run(cropEngine, { image_url: shapes, x_px: 170, y_px: 10, width_px: 140, height_px: 100 });
    assert.deepEqual(Object.keys(out), ['image_url'], 'the hosted output key');
    const [f] = files(out, 'image_url');
    assert.equal(f!.contentType, 'image/png');
    assert.equal(f!.width, 140);
    assert.equal(f!.height, 100);
    const [r, g, b] = await pixel(f!.data, 70, 50);
    assert.deepEqual([r, g, b], [0, 255, 0], 'the green block is inside the crop');
  });

  it('crop_image cuts a rectangle given in percent (defaults: the whole image)', async () => {
    // The right half, bottom half of 320×240: the black block.
    const { out } = await run(cropEngine, { image_url: shapes, x_percent: 50, y_percent: 50, width_percent: 50, height_percent: 50 });
    const [f] = files(out, 'image_url');
    assert.deepEqual([f!.width, f!.height], [160, 120]);
    assert.deepEqual((await pixel(f!.data, 80, 60)).slice(0, 3), [0, 0, 0]);
    const whole = files((await run(cropEngine, { image_url: shapes })).out, 'image_url')[0]!;
    assert.deepEqual([whole.width, whole.height], [320, 240]);
  });

  it('crop_image centres a pixel size given without a position; pixels win over percentages', async () => {
    const { out } = await run(cropEngine, { image_url: shapes, width_px: 20, height_px: 20, x_percent: 0, y_percent: 0 });
    const [f] = files(out, 'image_url');
    assert.deepEqual([f!.width, f!.height], [20, 20]);
    // The centre of the picture is where the four blocks' white margins meet.
    assert.deepEqual((await pixel(f!.data, 10, 10)).slice(0, 3), [255, 255, 255]);
    // The crop object is the same as the *_px fields.
    const viaObject = files((await run(cropEngine, { image_url: shapes, crop: { x: 0, y: 0, width: 30, height: 40 } })).out, 'image_url')[0]!;
    assert.deepEqual([viaObject.width, viaObject.height], [30, 40]);
  });

  it('crop_image clips at the edge and refuses a rectangle outside the image', async () => {
    const { out } = await run(cropEngine, { image_url: shapes, x_px: 300, y_px: 200, width_px: 100, height_px: 100 });
    assert.equal(files(out, 'image_url')[0]!.width, 20);
    await assert.rejects(run(cropEngine, { image_url: shapes, x_px: 400, y_px: 0, width_px: 10, height_px: 10 }), EngineInputError);
  });

  it('rejects bytes that are not an image', async () => {
    await assert.rejects(run(cropEngine, { image_url: dataUrl(Buffer.from('not an image'), 'image/png'), width_px: 10, height_px: 10 }), /not a decodable image/);
  });

  it('resize_image keeps the aspect ratio when only the width is given, and pads with contain', async () => {
    const { out } = await run(resizeEngine, { image_url: shapes, width: 160, fit: 'inside' });
    const [f] = files(out);
    assert.deepEqual([f!.width, f!.height], [160, 120]);
    const { out: padded } = await run(resizeEngine, { image_url: shapes, width: 200, height: 200, fit: 'contain', background: '#ff00ff' });
    const m = await meta(files(padded)[0]!);
    assert.deepEqual([m.width, m.height], [200, 200]);
    assert.deepEqual((await pixel(files(padded)[0]!.data, 100, 5)).slice(0, 3), [255, 0, 255]);
  });

  it('convert_image writes the requested format', async () => {
    for (const format of ['jpeg', 'webp', 'avif', 'gif', 'tiff'] as const) {
      const { out } = await run(convertEngine, { image_url: shapes, format, quality: 80 });
      const [f] = files(out);
      const m = await meta(f!);
      assert.equal(m.format === 'heif' ? 'avif' : m.format, format);
      assert.equal(f!.width, 320);
    }
  });

  it('adjust_image changes pixels as asked (invert, grayscale, brightness)', async () => {
    const { out } = await run(adjustEngine, { image_url: shapes, invert: true });
    assert.deepEqual((await pixel(files(out)[0]!.data, 40, 40)).slice(0, 3), [0, 255, 255], 'red inverts to cyan');
    const { out: grey } = await run(adjustEngine, { image_url: shapes, grayscale: true });
    const [r, g, b] = await pixel(files(grey)[0]!.data, 200, 40);
    assert.ok(r === g && g === b, 'grayscale makes channels equal');
    const { out: dark } = await run(adjustEngine, { image_url: shapes, brightness: 0.5, contrast: 1.2, saturation: 1.5, hue: 30 });
    const [wr] = await pixel(files(dark)[0]!.data, 2, 2);
    assert.ok(wr < 200, `white got darker (${wr})`);
  });

  it('blur_image blurs edges and pixelates into blocks', async () => {
    const { out } = await run(blurEngine, { image_url: shapes, style: 'gaussian', strength: 8 });
    const [r, g, b] = await pixel(files(out)[0]!.data, 10, 40);
    assert.ok(r > 200 && g > 40 && g < 230 && b > 40, `the red block's edge is smeared into white (${r},${g},${b})`);
    const { out: px } = await run(blurEngine, { image_url: shapes, style: 'pixelate', strength: 16 });
    const f = files(px)[0]!;
    assert.deepEqual([f.width, f.height], [320, 240]);
    assert.deepEqual(await pixel(f.data, 33, 33), await pixel(f.data, 46, 46), 'one 16 px block is one colour');
  });

  it('composite_images overlays with opacity and lays out grids', async () => {
    const red = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const blue = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#0000ff' } }).png().toBuffer();
    const { out } = await run(compositeEngine, { image_urls: [png(red), png(blue)], layout: 'overlay', position: 'center', opacity: 0.5 });
    const [r, , b] = await pixel(files(out)[0]!.data, 50, 50);
    assert.ok(Math.abs(r - 128) < 6 && Math.abs(b - 128) < 6, `half blue over red (${r}, ${b})`);
    const { out: grid } = await run(compositeEngine, { image_urls: [png(red), png(blue), png(red), png(blue)], layout: 'grid', gap: 10, background: '#ffffff' });
    const g = files(grid)[0]!;
    assert.deepEqual([g.width, g.height], [230, 230]);
    const { out: row } = await run(compositeEngine, { image_urls: [png(red), png(blue), png(red)], layout: 'horizontal', gap: 0 });
    assert.deepEqual([files(row)[0]!.width, files(row)[0]!.height], [300, 100]);
    await assert.rejects(run(compositeEngine, { image_urls: [png(red)], layout: 'grid' }), EngineInputError);
  });

  it('text_overlay draws text onto the picture', async () => {
    const plain = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#204060' } }).png().toBuffer();
    const { out, progress } = await run(textOverlayEngine, { image_url: png(plain), text: 'Hello from Atelier', position: 'bottom', color: '#ffffff', stroke_width: 2, box: true });
    const f = files(out)[0]!;
    assert.deepEqual([f.width, f.height], [400, 300]);
    const data = await sharp(f.data).removeAlpha().raw().toBuffer();
    const original = await sharp(plain).removeAlpha().raw().toBuffer();
    let changedTop = 0;
    let changedBottom = 0;
    for (let i = 0; i < data.length; i += 3) {
      if (Math.abs(data[i]! - original[i]!) > 40) (i / 3 / 400 < 150 ? changedTop++ : changedBottom++);
    }
    assert.ok(changedBottom > 1000, `text drawn at the bottom (${changedBottom} px changed)`);
    assert.equal(changedTop, 0, 'nothing drawn in the top half');
    assert.ok(progress.some(([p]) => p === 1));
  });

  it('color_palette finds the dominant colours with their shares', async () => {
    const { out } = await run(paletteEngine, { image_url: shapes, count: 5 });
    const { colors } = JSON.parse(text(out)) as { colors: Array<{ hex: string; share: number }> };
    const hexes = colors.map((c) => c.hex);
    // Resampling blends edges a little, so compare colours with a tolerance.
    const near = (a: string, b: string) => [0, 2, 4].every((i) => Math.abs(parseInt(a.slice(1 + i, 3 + i), 16) - parseInt(b.slice(1 + i, 3 + i), 16)) <= 12);
    assert.ok(near(hexes[0]!, '#ffffff'), `white covers most of the picture (${hexes[0]})`);
    for (const h of ['#ff0000', '#00ff00', '#0000ff', '#000000']) assert.ok(hexes.some((x) => near(x, h)), `${h} found in ${hexes}`);
    assert.ok(Math.abs(colors.reduce((s, c) => s + c.share, 0) - 1) < 0.01);
    const swatch = files(out)[0]!;
    assert.equal((await meta(swatch)).format, 'png');
  });
});
