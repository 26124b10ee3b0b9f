import type { SKRSContext2D } from '@napi-rs/canvas';

/**
 * Greedy word wrap with the context's current font: explicit newlines are kept, and a single word wider
 * than the line is broken by characters so nothing runs off the picture.
 */
export function wrapText(g: SKRSContext2D, text: string, maxWidth: number): string[] {
  const lines: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (g.measureText(candidate).width <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = '';
      let rest = word;
      while (g.measureText(rest).width > maxWidth && rest.length > 1) {
        let cut = rest.length - 1;
        while (cut > 1 && g.measureText(rest.slice(0, cut)).width > maxWidth) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  while (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
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
