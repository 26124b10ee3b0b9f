import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { num, str } from '../common/inputs.js';
import { fetchImage } from '../common/media.js';
import { NSFW_MODELS, type NsfwModel } from './nsfw.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./nsfw.work.ts', import.meta.url);
/** Classes that count as unsafe for the `flagged` verdict. */
const UNSAFE = ['Porn', 'Hentai', 'Sexy'];

/**
 * moderate_image: nsfwjs's five-class scores (Drawing, Hentai, Neutral, Porn, Sexy) and a flagged verdict
 * when the unsafe classes together pass the threshold.
 */
export const moderationEngine = localEngine({
  id: 'nsfwjs',
  requirements: ['npm: nsfwjs', 'npm: @tensorflow/tfjs', 'npm: @tensorflow/tfjs-backend-wasm'],
  packages: ['nsfwjs', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', 'sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const model = str(req.input, 'model', 'mobilenet_v2') as NsfwModel;
    if (!(model in NSFW_MODELS)) throw new EngineInputError(`model must be one of ${Object.keys(NSFW_MODELS).join(', ')}`);
    const threshold = Math.max(0, Math.min(1, num(req.input, 'threshold', 0.5)));
    ctx.progress(0.2, 'classifying');
    const scores = await runInThread<Record<string, number>>('tfjs', WORK, 'classify', [img.bytes, model], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    const unsafe = Math.round(UNSAFE.reduce((s, k) => s + (scores[k] ?? 0), 0) * 10000) / 10000;
    const top = Object.entries(scores).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'Neutral';
    const flagged = unsafe >= threshold;
    return {
      output: { kind: 'text', text: JSON.stringify({ model, top, flagged, unsafeScore: unsafe, threshold, scores }, null, 2) },
      flagged: { kind: 'boolean', value: flagged },
    };
  },
});
