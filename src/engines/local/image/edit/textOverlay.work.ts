import { canvasToPng, imageToCanvas } from '../common/canvasImage.js';
import { font, registerFonts, type FontName } from '../common/fonts.js';
import { fitFontSize, wrapText } from '../common/textLayout.js';

export interface TextOverlayOptions {
  text: string;
  position: string;
  font: FontName;
  /** 0 = fit automatically. */
  fontSize: number;
  color: string;
  strokeColor: string;
  /** Outline width in px; 0 = none. */
  strokeWidth: number;
  /** Draw a translucent box behind the text. */
  box: boolean;
  boxColor: string;
  boxOpacity: number;
  align: 'left' | 'center' | 'right';
}

const LINE_HEIGHT = 1.2;

/** Runs in a worker thread: canvas drawing is synchronous CPU work. */
export async function renderTextOverlay(bytes: Uint8Array, o: TextOverlayOptions): Promise<Uint8Array> {
  registerFonts();
  const canvas = await imageToCanvas(bytes);
  const g = canvas.getContext('2d');
  const { width: W, height: H } = canvas;
  const margin = Math.round(Math.min(W, H) * 0.04);
  const maxW = W - 2 * margin;
  const setFont = (px: number) => { g.font = font(o.font, px); };
  let size: number;
  let lines: string[];
  if (o.fontSize > 0) {
    size = o.fontSize;
    setFont(size);
    lines = wrapText(g, o.text, maxW);
  } else {
    // Auto size: as large as fits in a quarter of the picture's height, capped so a short word stays modest.
    ({ size, lines } = fitFontSize(g, o.text, { width: maxW, height: H / 4 }, setFont, { min: 8, max: Math.max(9, Math.round(H / 11)), lineHeight: LINE_HEIGHT }));
  }
  const lineH = size * LINE_HEIGHT;
  const blockH = lines.length * lineH;
  const blockW = Math.max(...lines.map((l) => g.measureText(l).width));
  const [vert, horiz] = splitPosition(o.position);
  const top = vert === 'top' ? margin : vert === 'bottom' ? H - margin - blockH : (H - blockH) / 2;
  const align = horiz ?? o.align;
  const x = align === 'left' ? margin : align === 'right' ? W - margin : W / 2;
  if (o.box) {
    const pad = size * 0.35;
    const bx = align === 'left' ? x - pad : align === 'right' ? x - blockW - pad : x - blockW / 2 - pad;
    g.save();
    g.globalAlpha = o.boxOpacity;
    g.fillStyle = o.boxColor;
    g.fillRect(bx, top - pad, blockW + 2 * pad, blockH + 2 * pad);
    g.restore();
  }
  g.textAlign = align;
  g.textBaseline = 'middle';
  g.lineJoin = 'round';
  for (const [i, line] of lines.entries()) {
    const y = top + lineH * (i + 0.5);
    if (o.strokeWidth > 0) {
      g.strokeStyle = o.strokeColor;
      g.lineWidth = o.strokeWidth * 2; // the stroke straddles the glyph edge: double it so `strokeWidth` shows outside
      g.strokeText(line, x, y);
    }
    g.fillStyle = o.color;
    g.fillText(line, x, y);
  }
  return canvasToPng(canvas);
}

/** "bottom-left" → ['bottom', 'left']; "center" → ['center', undefined]. */
function splitPosition(p: string): ['top' | 'center' | 'bottom', 'left' | 'right' | undefined] {
  const [v, h] = p.split('-') as [string, string | undefined];
  const vert = v === 'top' || v === 'bottom' ? v : 'center';
  const horiz = h === 'left' || h === 'right' ? h : undefined;
  return [vert, horiz];
}
