import path from 'node:path';
import type Tesseract from 'tesseract.js';
import { canvasToPng, imageToCanvas } from '../common/canvasImage.js';
import { registerFonts } from '../common/fonts.js';
import { packageDir } from '../common/packages.js';
import { annotationScale } from './annotate.js';
import { prepareForOcr } from './ocrPrepare.js';
import type { OcrBox } from './ocrWords.js';

let worker: Promise<Tesseract.Worker> | undefined;

/**
 * One tesseract.js worker per thread, created once: it loads the English LSTM data (best_int variant)
 * from @tesseract.js-data/eng on disk; nothing is cached or fetched.
 */
function tesseract(): Promise<Tesseract.Worker> {
  worker ??= (async () => {
    const { createWorker, OEM } = await import('tesseract.js');
    const langPath = path.join(packageDir('@tesseract.js-data/eng'), '4.0.0_best_int');
    return createWorker('eng', OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none', logger: () => {}, errorHandler: () => {} });
  })();
  worker.catch(() => { worker = undefined; });
  return worker;
}

export async function recognize(bytes: Uint8Array, psm: number): Promise<{ text: string; words: OcrBox[]; confidence: number; annotated: Uint8Array }> {
  const w = await tesseract();
  const { png, factor } = await prepareForOcr(bytes);
  // Decoded pixels carry no trustworthy DPI; tesseract's guess is noisy (and logged), so state the usual 300.
  await w.setParameters({ tessedit_pageseg_mode: String(psm) as Tesseract.PSM, user_defined_dpi: '300' });
  const r = await w.recognize(png, {}, { text: true, blocks: true });
  const words: OcrBox[] = [];
  for (const block of r.data.blocks ?? []) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) {
        for (const word of line.words) {
          if (!word.text.trim()) continue;
          words.push({
            text: word.text,
            confidence: Math.round(word.confidence),
            box: {
              x: Math.round(word.bbox.x0 / factor), y: Math.round(word.bbox.y0 / factor),
              width: Math.round((word.bbox.x1 - word.bbox.x0) / factor), height: Math.round((word.bbox.y1 - word.bbox.y0) / factor),
            },
          });
        }
      }
    }
  }
  return { text: r.data.text.trim(), words, confidence: Math.round(r.data.confidence), annotated: await annotateWords(bytes, words) };
}

/** Text only (document_ocr): no word boxes, no annotated picture. */
export async function recognizeText(bytes: Uint8Array, psm: number): Promise<{ text: string; confidence: number }> {
  const w = await tesseract();
  const { png } = await prepareForOcr(bytes);
  await w.setParameters({ tessedit_pageseg_mode: String(psm) as Tesseract.PSM, user_defined_dpi: '300' });
  const r = await w.recognize(png, {}, { text: true });
  return { text: r.data.text.trim(), confidence: Math.round(r.data.confidence) };
}

/** The input with a box around each word, green for confident words and orange for doubtful ones. */
export async function annotateWords(bytes: Uint8Array, words: OcrBox[]): Promise<Uint8Array> {
  registerFonts();
  const canvas = await imageToCanvas(bytes);
  const g = canvas.getContext('2d');
  g.lineWidth = Math.max(1, Math.round(annotationScale(canvas.width, canvas.height) * 1.5));
  for (const w of words) {
    g.strokeStyle = w.confidence >= 70 ? '#16a34a' : '#f97316';
    g.strokeRect(w.box.x, w.box.y, w.box.width, w.box.height);
  }
  return canvasToPng(canvas);
}
