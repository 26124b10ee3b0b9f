import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import { PSM_MODES, type OcrBox } from './ocrWords.js';
import { moduleUrl } from '../../moduleUrl.js';

export const OCR_WORK = moduleUrl('./ocr.work.ts', import.meta.url);

/**
 * The outputs every OCR engine gives: plain text, the boxes (words for Tesseract, lines for PaddleOCR)
 * with their text and confidence as JSON text, and the image with the boxes drawn.
 */
export async function ocrOutputs(r: { text: string; words: OcrBox[]; confidence: number; annotated: Uint8Array }, unit: 'word' | 'line') {
  return {
    output: { kind: 'text' as const, text: r.text },
    boxes: { kind: 'text' as const, text: JSON.stringify({ confidence: r.confidence, unit, boxes: r.words }, null, 2) },
    result: [await imageOutput(asBuffer(r.annotated), 'ocr-boxes.png')],
  };
}

export function psmOf(input: Record<string, unknown>): number {
  const mode = str(input, 'layout', 'auto');
  const psm = PSM_MODES[mode];
  if (psm === undefined) throw new EngineInputError(`layout must be one of ${Object.keys(PSM_MODES).join(', ')}`);
  return psm;
}

/** ocr_image, tesseract mode: English text recognition with tesseract.js (Tesseract LSTM compiled to WASM). */
export const ocrEngine = localEngine({
  id: 'tesseract-js',
  requirements: ['npm: tesseract.js', 'npm: @tesseract.js-data/eng'],
  packages: ['tesseract.js', '@tesseract.js-data/eng', 'sharp', '@napi-rs/canvas'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const psm = psmOf(req.input);
    ctx.progress(0.2, 'recognising text');
    const r = await runInThread<{ text: string; words: OcrBox[]; confidence: number; annotated: Uint8Array }>('ocr', OCR_WORK, 'recognize', [img.bytes, psm], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    return ocrOutputs(r, 'word');
  },
});
