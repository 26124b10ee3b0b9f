import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import type { EsrganSize, UpscaleResult } from './esrgan.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./esrgan.work.ts', import.meta.url);
/** Input limit: the WASM backend does roughly 50k (slim) to 15k (medium) input pixels a second on 2 cores. */
export const ESRGAN_MAX_INPUT_PIXELS = 1024 * 1024;

/**
 * esrgan_upscale: neural super-resolution with the UpscalerJS ESRGAN slim/medium weights on tfjs WASM.
 * The catalog binding's `options.size` picks the weights.
 */
export const esrganEngine = localEngine({
  id: 'esrgan',
  requirements: ['npm: @upscalerjs/esrgan-slim', 'npm: @upscalerjs/esrgan-medium', 'npm: @tensorflow/tfjs-layers', 'npm: @tensorflow/tfjs-backend-wasm'],
  packages: ['@upscalerjs/esrgan-slim', '@upscalerjs/esrgan-medium', '@tensorflow/tfjs-core', '@tensorflow/tfjs-layers', '@tensorflow/tfjs-backend-wasm', 'sharp'],
  async run(req, ctx) {
    const size = (req.options.size ?? 'slim') as EsrganSize;
    if (size !== 'slim' && size !== 'medium') throw new Error(`esrgan: unknown weights ${String(size)}`);
    const scale = int(req.input, 'scale', 2, 2, 4);
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    if (img.width * img.height > ESRGAN_MAX_INPUT_PIXELS) {
      throw new EngineInputError(`the image is ${img.width}×${img.height}: local upscaling takes at most ${ESRGAN_MAX_INPUT_PIXELS / 1e6} megapixel (resize it first)`);
    }
    ctx.progress(0.1, `upscaling ×${scale} with ESRGAN ${size}`);
    const r = await runInThread<UpscaleResult>('tfjs', WORK, 'upscale', [img.bytes, size, scale], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    ctx.log.debug('esrgan done', { tiles: r.tiles, width: r.width, height: r.height });
    return { result: [await imageOutput(asBuffer(r.png), `upscaled-x${scale}.png`)] };
  },
});
