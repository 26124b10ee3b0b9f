import sharp from 'sharp';
import { EngineInputError } from '../../../types.js';
import { localEngine } from '../common/engine.js';
import { parseHex } from '../common/color.js';
import { optNum, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';

const FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
type Fit = (typeof FITS)[number];

/**
 * resize_image: scales to a width and/or height (the missing one keeps the aspect ratio) with a CSS-like
 * fit; `contain` pads with the background colour. Lanczos resampling (sharp's default).
 */
export const resizeEngine = localEngine({
  id: 'image-resize',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const width = optNum(req.input, 'width');
    const height = optNum(req.input, 'height');
    const scale = optNum(req.input, 'scale');
    let w = width && Math.round(width);
    let h = height && Math.round(height);
    if (!w && !h) {
      if (!scale) throw new EngineInputError('give width, height or scale');
      w = Math.max(1, Math.round(img.width * scale));
      h = Math.max(1, Math.round(img.height * scale));
    }
    if ((w ?? 0) > 8192 || (h ?? 0) > 8192) throw new EngineInputError('the output may be at most 8192 pixels on a side');
    const fit = str(req.input, 'fit', 'inside') as Fit;
    if (!FITS.includes(fit)) throw new EngineInputError(`fit must be one of ${FITS.join(', ')}`);
    const bg = parseHex(str(req.input, 'background', '#000000'), 'background');
    ctx.progress(0.3, 'resizing');
    const data = await sharp(img.bytes)
      .resize({ width: w, height: h, fit, background: { ...bg, alpha: 1 }, withoutEnlargement: false })
      .png()
      .toBuffer();
    return { result: [await imageOutput(data, 'resized.png')] };
  },
});
