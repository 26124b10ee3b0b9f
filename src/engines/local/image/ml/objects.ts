import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, num, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import type { DetectedObject } from './vision.work.js';
import { moduleUrl } from '../../moduleUrl.js';

export const VISION_WORK = moduleUrl('./vision.work.ts', import.meta.url);
export const HUMAN_PACKAGES = ['@vladmandic/human', '@tensorflow/tfjs-core', '@tensorflow/tfjs-converter', '@tensorflow/tfjs-backend-wasm', 'sharp', '@napi-rs/canvas'];

/** detect_objects: the 80 COCO classes found by CenterNet (from @vladmandic/human), as JSON and a boxed image. */
export const objectsEngine = localEngine({
  id: 'human-objects',
  requirements: ['npm: @vladmandic/human', 'npm: @tensorflow/tfjs-backend-wasm'],
  packages: HUMAN_PACKAGES,
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const minScore = Math.max(0.05, Math.min(1, num(req.input, 'min_score', 0.3)));
    const maxObjects = int(req.input, 'max_objects', 20, 1, 100);
    ctx.progress(0.2, 'detecting objects');
    const r = await runInThread<{ objects: DetectedObject[]; annotated: Uint8Array }>('tfjs', VISION_WORK, 'detectObjects', [img.bytes, minScore, maxObjects], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    const summary = { width: img.width, height: img.height, count: r.objects.length, objects: r.objects };
    return {
      output: { kind: 'text', text: JSON.stringify(summary, null, 2) },
      result: [await imageOutput(asBuffer(r.annotated), 'objects.png')],
    };
  },
});
