import sharp from 'sharp';
import { localEngine } from '../common/engine.js';
import { num, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';

/**
 * blur_image: a Gaussian blur of the given radius, or pixelation (shrink with nearest-neighbour, then
 * enlarge again) where `strength` is the block size in pixels.
 */
export const blurEngine = localEngine({
  id: 'image-blur',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const style = str(req.input, 'style', 'gaussian');
    const strength = Math.max(0.3, Math.min(200, num(req.input, 'strength', 6)));
    ctx.progress(0.3, 'blurring');
    let data: Buffer;
    if (style === 'pixelate') {
      const block = Math.max(2, Math.round(strength));
      const small = await sharp(img.bytes)
        .resize(Math.max(1, Math.round(img.width / block)), Math.max(1, Math.round(img.height / block)), { kernel: 'nearest', fit: 'fill' })
        .png()
        .toBuffer();
      data = await sharp(small).resize(img.width, img.height, { kernel: 'nearest', fit: 'fill' }).png().toBuffer();
    } else {
      data = await sharp(img.bytes).blur(strength).png().toBuffer();
    }
    return { result: [await imageOutput(data, 'blurred.png')] };
  },
});
