/**
 * Intl.Segmenter over long text, in pieces. V8's segmenter slows down worse than quadratically with the
 * length of the string it iterates (76 kB of text: 1.2 s; 152 kB: 25 s, measured on Node 20), which
 * would stall the event loop. Unicode (UAX #29) always breaks graphemes, words and sentences after a
 * line feed, so cutting after one never changes the result; only single lines longer than a piece are
 * cut elsewhere: before a space (a grapheme and word boundary), after sentence punctuation for sentences.
 */
const PIECE = 2000;

type Granularity = 'grapheme' | 'word' | 'sentence';

function cutPoint(line: string, from: number, granularity: Granularity): number {
  const window = line.slice(from, from + PIECE);
  if (granularity === 'sentence') {
    let best = -1;
    for (const m of window.matchAll(/[.!?。！？]["'”’)\]]*\s+/g)) best = m.index + m[0].length;
    if (best > 0) return from + best;
  }
  const space = window.lastIndexOf(' ');
  if (space > 0) return from + space;
  // No space at all: cut where the next character cannot belong to the previous one's cluster.
  let cut = from + PIECE;
  while (cut > from + 1 && /[\p{M}\u200d\ufe0f\udc00-\udfff]/u.test(line[cut] ?? '')) cut--;
  return cut;
}

function pieces(text: string, granularity: Granularity): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (current.length + line.length <= PIECE) {
      current += line;
      continue;
    }
    if (current) out.push(current);
    current = '';
    if (line.length <= PIECE) {
      current = line;
      continue;
    }
    let at = 0;
    while (line.length - at > PIECE) {
      const cut = cutPoint(line, at, granularity);
      out.push(line.slice(at, cut));
      at = cut;
    }
    current = line.slice(at);
  }
  if (current) out.push(current);
  return out;
}

export function* segments(text: string, granularity: Granularity): Generator<{ segment: string; isWordLike?: boolean }> {
  const segmenter = new Intl.Segmenter(undefined, { granularity });
  for (const piece of pieces(text, granularity)) yield* segmenter.segment(piece);
}
