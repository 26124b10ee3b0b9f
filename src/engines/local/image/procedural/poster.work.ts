import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { font, registerFonts, type FontName } from '../common/fonts.js';
import { seededRng } from '../../random.js';
import { fitFontSize } from '../common/textLayout.js';
import { pickPalette } from './palettes.js';

export const POSTER_STYLES = ['bold', 'minimal', 'retro', 'neon', 'swiss'] as const;
export type PosterStyle = (typeof POSTER_STYLES)[number];

export interface PosterOptions {
  text: string;
  subtitle?: string;
  style: PosterStyle;
  palette: string;
  background?: string;
  accent?: string;
  width: number;
  height: number;
  seed: number;
}

type Colors = { bg: string; ink: string; a1: string; a2: string; a3: string };

/** Draws one typographic poster: a styled background made of seeded shapes, then the fitted headline. */
export async function renderPoster(o: PosterOptions): Promise<Uint8Array> {
  registerFonts();
  const rand = seededRng(o.seed);
  // Neon only reads as neon on a dark palette, so "auto" means the neon palette there.
  const [bg, ink, a1, a2, a3] = pickPalette(o.style === 'neon' && o.palette === 'auto' ? 'neon' : o.palette, rand);
  const c: Colors = { bg: o.background ?? bg, ink, a1: o.accent ?? a1, a2, a3 };
  const canvas = createCanvas(o.width, o.height);
  const g = canvas.getContext('2d');
  const W = o.width;
  const H = o.height;
  const m = Math.round(Math.min(W, H) * 0.07);
  const styles: Record<PosterStyle, () => { font: FontName; upper: boolean; box: { x: number; y: number; w: number; h: number }; align: 'left' | 'center'; ink: string }> = {
    bold: () => {
      g.fillStyle = c.bg; g.fillRect(0, 0, W, H);
      // Diagonal bands of the accent colours behind the lower half.
      g.save(); g.translate(W / 2, H * 0.75); g.rotate(-0.25 + rand() * 0.1);
      [c.a1, c.a2, c.a3].forEach((col, i) => { g.fillStyle = col; g.fillRect(-W, i * H * 0.07, W * 2, H * 0.05); });
      g.restore();
      return { font: 'condensed', upper: true, box: { x: m, y: m, w: W - 2 * m, h: H * 0.55 }, align: 'left', ink: c.ink };
    },
    minimal: () => {
      g.fillStyle = c.bg; g.fillRect(0, 0, W, H);
      g.strokeStyle = c.ink; g.lineWidth = Math.max(1, W / 400);
      g.strokeRect(m / 2, m / 2, W - m, H - m);
      g.fillStyle = c.a1;
      g.beginPath(); g.arc(W * (0.25 + rand() * 0.5), H * 0.28, Math.min(W, H) * (0.12 + rand() * 0.08), 0, Math.PI * 2); g.fill();
      return { font: 'serif', upper: false, box: { x: m * 1.5, y: H * 0.52, w: W - 3 * m, h: H * 0.3 }, align: 'center', ink: c.ink };
    },
    retro: () => {
      const grad = g.createLinearGradient(0, 0, 0, H);
      grad.addColorStop(0, c.bg); grad.addColorStop(0.6, c.a3); grad.addColorStop(1, c.a2);
      g.fillStyle = grad; g.fillRect(0, 0, W, H);
      // A striped setting sun: the stripes widen towards the horizon.
      const r = Math.min(W, H) * 0.3;
      const cx = W / 2; const cy = H * 0.62;
      g.save(); g.beginPath(); g.arc(cx, cy, r, 0, Math.PI * 2); g.clip();
      const sun = g.createLinearGradient(0, cy - r, 0, cy + r); sun.addColorStop(0, c.a2); sun.addColorStop(1, c.a1);
      g.fillStyle = sun; g.fillRect(cx - r, cy - r, 2 * r, 2 * r);
      g.fillStyle = c.bg;
      for (let i = 0; i < 7; i++) g.fillRect(cx - r, cy + (i / 7) * r, 2 * r, (i + 1) * r * 0.018);
      g.restore();
      return { font: 'sans-bold', upper: true, box: { x: m, y: m, w: W - 2 * m, h: H * 0.3 }, align: 'center', ink: c.ink };
    },
    neon: () => {
      g.fillStyle = c.bg; g.fillRect(0, 0, W, H);
      // A receding grid floor.
      g.strokeStyle = c.a2; g.globalAlpha = 0.5; g.lineWidth = Math.max(1, W / 500);
      const horizon = H * 0.62;
      for (let i = -12; i <= 12; i++) { g.beginPath(); g.moveTo(W / 2 + i * W * 0.02, horizon); g.lineTo(W / 2 + i * W * 0.18, H); g.stroke(); }
      for (let k = 1; k < 12; k++) { const y = horizon + (H - horizon) * (k / 12) ** 2; g.beginPath(); g.moveTo(0, y); g.lineTo(W, y); g.stroke(); }
      g.globalAlpha = 1;
      g.shadowColor = c.a1; g.shadowBlur = Math.min(W, H) * 0.03;
      return { font: 'sans-bold', upper: true, box: { x: m, y: H * 0.18, w: W - 2 * m, h: H * 0.36 }, align: 'center', ink: c.ink };
    },
    swiss: () => {
      g.fillStyle = c.bg; g.fillRect(0, 0, W, H);
      const cols = 6;
      const cw = (W - 2 * m) / cols;
      for (let i = 0; i < 7; i++) {
        const col = [c.a1, c.a2, c.a3, c.ink][Math.floor(rand() * 4)]!;
        g.fillStyle = col;
        const x = m + Math.floor(rand() * cols) * cw;
        const y = H * 0.45 + rand() * H * 0.4;
        const s = cw * (1 + Math.floor(rand() * 2));
        if (rand() < 0.5) g.fillRect(x, y, s, s);
        else { g.beginPath(); g.arc(x + s / 2, y + s / 2, s / 2, 0, Math.PI * 2); g.fill(); }
      }
      return { font: 'sans-bold', upper: false, box: { x: m, y: m, w: W - 2 * m, h: H * 0.38 }, align: 'left', ink: c.ink };
    },
  };
  const layout = styles[o.style]();
  const headline = layout.upper ? o.text.toUpperCase() : o.text;
  drawBlock(g, headline, layout.box, layout.font, layout.align, layout.ink, Math.round(Math.min(W, H) * 0.3));
  g.shadowBlur = 0;
  if (o.subtitle) {
    const box = { x: m, y: H - m - H * 0.09, w: W - 2 * m, h: H * 0.09 };
    drawBlock(g, o.subtitle, box, o.style === 'minimal' ? 'serif' : 'sans', layout.align, layout.ink, Math.round(H * 0.04));
  }
  return canvas.encode('png');
}

function drawBlock(g: SKRSContext2D, text: string, box: { x: number; y: number; w: number; h: number }, face: FontName, align: 'left' | 'center', ink: string, maxSize: number) {
  const lineHeight = 1.1;
  const { size, lines } = fitFontSize(g, text, { width: box.w, height: box.h }, (px) => { g.font = font(face, px); }, { min: 8, max: maxSize, lineHeight });
  g.fillStyle = ink;
  g.textAlign = align;
  g.textBaseline = 'top';
  const x = align === 'left' ? box.x : box.x + box.w / 2;
  lines.forEach((line, i) => g.fillText(line, x, box.y + i * size * lineHeight));
}
