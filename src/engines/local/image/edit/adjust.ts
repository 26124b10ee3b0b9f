import sharp from 'sharp';
import { localEngine } from '../common/engine.js';
import { bool, num, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';

/**
 * adjust_image: colour and tone corrections, applied in a fixed order (contrast, brightness, saturation,
 * hue, gamma, sharpen, grayscale, invert) so the same inputs always give the same picture.
 */
export const adjustEngine = localEngine({
  id: 'image-adjust',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const contrast = num(req.input, 'contrast', 1);
    const brightness = num(req.input, 'brightness', 1);
    const saturation = num(req.input, 'saturation', 1);
    const hue = num(req.input, 'hue', 0);
    const gamma = num(req.input, 'gamma', 1);
    const sharpen = num(req.input, 'sharpen', 0);
    ctx.progress(0.3, 'adjusting');
    let pipe = sharp(img.bytes);
    // Contrast pivots around mid-grey: out = c·in + 128·(1 − c).
    if (contrast !== 1) pipe = pipe.linear(contrast, 128 * (1 - contrast));
    if (brightness !== 1 || saturation !== 1 || hue !== 0) {
      pipe = pipe.modulate({ brightness, saturation, hue: Math.round(hue) });
    }
    // sharp's gamma(g) decodes with g and re-encodes with 1/g, so 1 is a no-op and sharp only accepts 1..3.
    if (gamma !== 1) pipe = pipe.gamma(Math.max(1, Math.min(3, gamma)));
    if (sharpen > 0) pipe = pipe.sharpen({ sigma: sharpen });
    if (bool(req.input, 'grayscale')) pipe = pipe.grayscale();
    if (bool(req.input, 'invert')) pipe = pipe.negate({ alpha: false });
    const data = await pipe.png().toBuffer();
    return { result: [await imageOutput(data, 'adjusted.png')] };
  },
});
