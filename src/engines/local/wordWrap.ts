import type { SKRSContext2D } from '@napi-rs/canvas';

/**
 * The one greedy word wrap of the local engines that draw text (image text overlays and posters,
 * image/common/textLayout.ts; video captions, video/captions/render.ts), measured with the context's current
 * font. Explicit newlines start a new line; a word wider than the line is broken between characters (code
 * points), so nothing runs off the picture.
 * `blankLines: 'keep'` keeps the empty lines of blank paragraphs (but not trailing ones), as a text overlay
 * shows them; `'drop'` leaves them out, as captions do.
 */
export function wrapText(g: SKRSContext2D, text: string, maxWidth: number, opts: { blankLines: 'keep' | 'drop' }): string[] {
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
      const pieces = g.measureText(word).width > maxWidth ? breakWord(g, word, maxWidth) : [word];
      lines.push(...pieces.slice(0, -1));
      line = pieces.at(-1) ?? '';
    }
    if (line || opts.blankLines === 'keep') lines.push(line);
  }
  while (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** A word split into the longest pieces that fit, each at least one character. */
function breakWord(g: SKRSContext2D, word: string, maxWidth: number): string[] {
  const pieces: string[] = [];
  let cur = '';
  for (const ch of Array.from(word)) {
    if (cur && g.measureText(cur + ch).width > maxWidth) {
      pieces.push(cur);
      cur = ch;
    } else cur += ch;
  }
  if (cur) pieces.push(cur);
  return pieces;
}
