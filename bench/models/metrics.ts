import { distance } from 'fastest-levenshtein';
import { ssim } from 'ssim.js';

/** Quality measures, pure. Text is compared after folding whitespace (line breaks are not errors). */

const fold = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Character error rate: edit distance ÷ reference length (can exceed 1 when the output is long garbage). */
export function cer(hypothesis: string, reference: string): number {
  const ref = fold(reference);
  return distance(fold(hypothesis), ref) / Math.max(1, ref.length);
}

export const words = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).filter(Boolean);

/** Word error rate: word-level edit distance ÷ reference words (each distinct word mapped to one code point). */
export function wer(hypothesis: string, reference: string): number {
  const codes = new Map<string, string>();
  const enc = (ws: string[]) => ws.map((w) => {
    let c = codes.get(w);
    if (!c) codes.set(w, (c = String.fromCodePoint(0x4e00 + codes.size)));
    return c;
  }).join('');
  const ref = words(reference);
  return distance(enc(words(hypothesis)), enc(ref)) / Math.max(1, ref.length);
}

/** PSNR in dB over RGB bytes of two same-sized images. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error('psnr: sizes differ');
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    se += d * d;
  }
  const mse = se / a.length;
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

/** Mean SSIM (ssim.js, its default Wang et al. Gaussian window) of two RGB images of one size. */
export function meanSsim(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  const rgba = (x: Uint8Array) => {
    const out = new Uint8ClampedArray(width * height * 4);
    for (let i = 0, j = 0; i < x.length; i += 3, j += 4) {
      out[j] = x[i]!;
      out[j + 1] = x[i + 1]!;
      out[j + 2] = x[i + 2]!;
      out[j + 3] = 255;
    }
    return { data: out, width, height };
  };
  return ssim(rgba(a), rgba(b)).mssim;
}

/** Intersection over union of two binary masks (1 byte per pixel, > 127 = foreground). */
export function iou(pred: Uint8Array, truth: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < truth.length; i++) {
    const p = pred[i]! > 127;
    const t = truth[i]! > 127;
    if (p && t) inter++;
    if (p || t) union++;
  }
  return union === 0 ? 1 : inter / union;
}

/** Precision and recall of predicted label sets against labelled ones, pooled over images. */
export function precisionRecall(items: Array<{ predicted: Set<string>; expected: Set<string> }>): { precision: number; recall: number; tp: number; fp: number; fn: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const { predicted, expected } of items) {
    for (const p of predicted) (expected.has(p) ? tp++ : fp++);
    for (const e of expected) if (!predicted.has(e)) fn++;
  }
  return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, tp, fp, fn };
}

export const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
