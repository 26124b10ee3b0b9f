import sharp from 'sharp';
import { EngineInputError } from '../../../types.js';
import { localEngine } from '../common/engine.js';
import { int, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';

/**
 * crop_image: cuts a rectangle out of an image. The rectangle is given in pixels of the input; a
 * rectangle that reaches past the edge is clipped to the picture rather than refused, but one that lies
 * wholly outside is an input error.
 */
export const cropEngine = localEngine({
  id: 'image-crop',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const left = int(req.input, 'left', 0, 0, 100_000);
    const top = int(req.input, 'top', 0, 0, 100_000);
    const width = Math.min(int(req.input, 'width', img.width, 1, 100_000), img.width - left);
    const height = Math.min(int(req.input, 'height', img.height, 1, 100_000), img.height - top);
    if (width < 1 || height < 1) {
      throw new EngineInputError(`the crop rectangle lies outside the ${img.width}×${img.height} image`);
    }
    ctx.progress(0.3, 'cropping');
    const data = await sharp(img.bytes).extract({ left, top, width, height }).png().toBuffer();
    return { result: [await imageOutput(data, 'cropped.png')] };
  },
});
