import type { SKRSContext2D } from '@napi-rs/canvas';
import { wrapText as wrapLines } from '../../wordWrap.js';

/** Word wrap as a text overlay shows it: blank lines of the text are kept (engines/local/wordWrap.ts). */
export function wrapText(g: SKRSContext2D, text: string, maxWidth: number): string[] {
  return wrapLines(g, text, maxWidth, { blankLines: 'keep' });
}

/**
 * The largest font size (between min and max) at which `text` wraps into the box without splitting a
 * word, found by bisection (fit is monotonic in the size). `setFont(px)` must set g.font for a size.
 */
export function fitFontSize(
  g: SKRSContext2D, text: string, box: { width: number; height: number }, setFont: (px: number) => void,
  opts: { min: number; max: number; lineHeight: number },
): { size: number; lines: string[] } {
  let lo = opts.min;
  let hi = opts.max;
  let best = { size: lo, lines: (setFont(lo), wrapText(g, text, box.width)) };
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    setFont(mid);
    const lines = wrapText(g, text, box.width);
    const wordsFit = text.split(/\s+/).every((w) => g.measureText(w).width <= box.width);
    if (wordsFit && lines.length * mid * opts.lineHeight <= box.height) {
      best = { size: mid, lines };
      lo = mid;
    } else {
      hi = mid;
    }
  }
  setFont(best.size);
  return best;
}
