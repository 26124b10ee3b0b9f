import { GlobalFonts, createCanvas } from '@napi-rs/canvas';
import { CAPTION_FAMILY, captionFontPath } from './font.js';
import { wrapText } from '../../wordWrap.js';

/**
 * Draws captions into transparent PNG strips, one per cue, for ffmpeg to overlay. Runs in a worker thread
 * (engines/local/threads.ts): text shaping and PNG encoding are CPU work that must not stall the API.
 * Drawing the text ourselves, rather than ffmpeg's drawtext/subtitles filters, gives the same look with
 * either ffmpeg build whatever fonts and libraries it was built with.
 */

const fontFile = captionFontPath();
if (fontFile) GlobalFonts.registerFromPath(fontFile, CAPTION_FAMILY);

export interface CaptionStyle {
  width: number;
  height: number;
  fontSize: number;
  color: string;
  style: 'outline' | 'box';
  position: 'bottom' | 'top' | 'middle';
}

export interface CaptionStrip {
  png: Uint8Array;
  /** Where the strip's top edge goes on the frame. */
  y: number;
}

export function renderCaptionStrips(texts: string[], o: CaptionStyle): CaptionStrip[] {
  const measure = createCanvas(8, 8).getContext('2d');
  const maxWidth = o.width * 0.9;
  const margin = Math.round(o.height * 0.06);
  return texts.map((text) => {
    // Shrink a long caption until it fits in half the frame.
    let size = o.fontSize;
    let lines: string[];
    for (;;) {
      measure.font = `${size}px "${CAPTION_FAMILY}"`;
      lines = wrapText(measure, text, maxWidth, { blankLines: 'drop' });
      if (lines.length * size * 1.25 <= o.height * 0.5 || size <= 10) break;
      size = Math.max(10, Math.floor(size * 0.9));
    }
    const lineHeight = Math.round(size * 1.25);
    const pad = Math.round(size * 0.35);
    const stripHeight = Math.min(o.height, lines.length * lineHeight + 2 * pad);
    const canvas = createCanvas(o.width, stripHeight);
    const g = canvas.getContext('2d');
    g.font = `${size}px "${CAPTION_FAMILY}"`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    lines.forEach((line, k) => {
      const cy = pad + k * lineHeight + lineHeight / 2;
      if (o.style === 'box') {
        const w = g.measureText(line).width + 2 * pad;
        g.fillStyle = 'rgba(0, 0, 0, 0.62)';
        g.fillRect((o.width - w) / 2, cy - lineHeight / 2, w, lineHeight);
      } else {
        g.lineWidth = Math.max(2, size * 0.16);
        g.lineJoin = 'round';
        g.strokeStyle = 'rgba(0, 0, 0, 0.9)';
        g.strokeText(line, o.width / 2, cy);
      }
      g.fillStyle = o.color;
      g.fillText(line, o.width / 2, cy);
    });
    const y = o.position === 'top' ? margin : o.position === 'middle' ? Math.round((o.height - stripHeight) / 2) : o.height - margin - stripHeight;
    return { png: canvas.toBuffer('image/png'), y: Math.max(0, y) };
  });
}
