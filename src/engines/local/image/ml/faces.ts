import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import { HUMAN_PACKAGES, VISION_WORK } from './objects.js';
import type { FaceAnalysis } from './vision.work.js';

/**
 * analyze_faces: faces with box, estimated age and gender, emotion scores, head pose and key landmarks
 * (@vladmandic/human: BlazeFace + FaceMesh + FaceRes + emotion). An image with no face is a valid answer
 * (count 0), not an error.
 */
export const facesEngine = localEngine({
  id: 'human-faces',
  requirements: ['npm: @vladmandic/human', 'npm: @tensorflow/tfjs-backend-wasm'],
  packages: HUMAN_PACKAGES,
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const maxFaces = int(req.input, 'max_faces', 5, 1, 20);
    ctx.progress(0.2, 'analysing faces');
    const r = await runInThread<{ faces: FaceAnalysis[]; annotated: Uint8Array }>('tfjs', VISION_WORK, 'analyzeFaces', [img.bytes, maxFaces], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    const summary = { width: img.width, height: img.height, count: r.faces.length, faces: r.faces };
    return {
      output: { kind: 'text', text: JSON.stringify(summary, null, 2) },
      result: [await imageOutput(asBuffer(r.annotated), 'faces.png')],
    };
  },
});
