import sharp from 'sharp';
import { localEngine } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import { cropRect } from './cropRect.js';

/**
 * crop_image: cuts a rectangle out of an image, given in percent or in pixels (cropRect.ts). The output
 * is keyed `image_url`, as the hosted service keys it (catalog/models/utilities.ts).
 */
export const cropEngine = localEngine({
  id: 'image-crop',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const rect = cropRect(req.input, img.width, img.height);
    ctx.progress(0.3, 'cropping');
    const data = await sharp(img.bytes).extract(rect).png().toBuffer();
    return { image_url: [await imageOutput(data, 'cropped.png')] };
  },
});
