/** A caption and when it shows, in seconds of the video. */
export interface Cue {
  start: number;
  end: number;
  text: string;
}

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3})/;

function seconds(stamp: string): number {
  const [hms, frac = '0'] = stamp.replace(',', '.').split('.');
  const parts = hms!.split(':').map(Number);
  while (parts.length < 3) parts.unshift(0);
  return parts[0]! * 3600 + parts[1]! * 60 + parts[2]! + Number(`0.${frac}`);
}

/** Removes markup a caption file may carry: <i>, <b>, <font>, WebVTT voice tags, SSA overrides {\an8}. */
function plain(text: string): string {
  return text.replace(/<[^>]*>/g, '').replace(/\{\\[^}]*\}/g, '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').trim();
}

/**
 * Reads SRT or WebVTT cues. Text without any timing line is plain text: each paragraph (separated by a
 * blank line) gets an equal share of the video, so a single paragraph stays on screen throughout.
 */
export function parseCaptions(source: string, videoSeconds: number): Cue[] {
  const blocks = source.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '').split(/\n\s*\n/);
  const timed: Cue[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    const i = lines.findIndex((l) => TIMING.test(l));
    if (i < 0) continue;
    const m = TIMING.exec(lines[i]!)!;
    const text = plain(lines.slice(i + 1).join('\n'));
    if (text) timed.push({ start: seconds(m[1]!), end: seconds(m[2]!), text });
  }
  if (timed.length > 0 || /-->/.test(source)) return timed;
  const paragraphs = blocks.map(plain).filter((p) => p !== '' && p !== 'WEBVTT');
  const share = videoSeconds / Math.max(1, paragraphs.length);
  return paragraphs.map((text, k) => ({ start: k * share, end: (k + 1) * share, text }));
}

/** Keeps the cues that show within [0, seconds], clipped to it, in time order. */
export function cuesWithin(cues: Cue[], seconds: number): Cue[] {
  return cues
    .filter((c) => c.end > c.start && c.start < seconds && c.end > 0)
    .map((c) => ({ ...c, start: Math.max(0, c.start), end: Math.min(seconds, c.end) }))
    .sort((a, b) => a.start - b.start);
}
