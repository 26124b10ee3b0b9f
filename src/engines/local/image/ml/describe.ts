import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { fetchImage } from '../common/media.js';
import type { PaletteColor } from '../edit/palette.work.js';
import { describeScene } from './describeSentence.js';
import { HUMAN_PACKAGES, VISION_WORK } from './objects.js';
import { OCR_WORK } from './ocr.js';
import type { OcrBox } from './ocrWords.js';
import type { DetectedObject, FaceAnalysis } from './vision.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const PALETTE_WORK = moduleUrl('../edit/palette.work.ts', import.meta.url);

/**
 * describe_image: a template-built sentence from real detections (CenterNet objects, faces, tesseract.js
 * text, k-means colours). The three analyses run in parallel in their own thread pools.
 */
export const describeEngine = localEngine({
  id: 'describe-image',
  requirements: ['npm: @vladmandic/human', 'npm: tesseract.js', 'npm: @tesseract.js-data/eng', 'npm: sharp'],
  packages: [...HUMAN_PACKAGES, 'tesseract.js', '@tesseract.js-data/eng'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const detail = str(req.input, 'detail', 'detailed');
    if (detail !== 'brief' && detail !== 'detailed') throw new EngineInputError('detail must be brief or detailed');
    ctx.progress(0.1, 'looking at the image');
    const opts = { signal: ctx.signal };
    const [scene, ocr, colors] = await Promise.all([
      runInThread<{ objects: DetectedObject[]; faces: FaceAnalysis[] }>('tfjs', VISION_WORK, 'sceneSignals', [img.bytes, 0.35], opts),
      runInThread<{ words: OcrBox[] }>('ocr', OCR_WORK, 'recognize', [img.bytes, 3], opts),
      runInThread<PaletteColor[]>('image-canvas', PALETTE_WORK, 'extractPalette', [img.bytes, 5], opts),
    ]).catch((e: unknown) => rethrowAborted(ctx, e));
    const facts = { width: img.width, height: img.height, objects: scene.objects, faces: scene.faces, words: ocr.words, colors };
    const sentence = describeScene(facts, detail);
    return {
      output: { kind: 'text', text: sentence },
      details: { kind: 'text', text: JSON.stringify(facts, null, 2) },
    };
  },
});
