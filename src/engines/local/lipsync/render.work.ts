import fs from 'node:fs/promises';
import path from 'node:path';
import { createCanvas, ImageData, type Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { columnWeight, contourY, mouthGeometry, type MouthGeometry, type Pt } from './jaw.js';

export interface RenderRequest {
  image: Uint8Array;
  /** Longest side of the video, px (kept even for H.264). */
  maxSide: number;
  landmarks: { width: number; lipsUpperOuter: Pt[]; lipsUpperInner: Pt[]; lipsLowerInner: Pt[]; silhouette: Pt[] };
  /** Mouth opening 0..1 per 40 ms frame. */
  openings: number[];
  /** Distinct jaw positions rendered; frames reuse the nearest one. */
  levels: number;
  outDir: string;
}

/**
 * Draws the frames of the mouth animation into `outDir` as frame_00000.jpg… Each distinct opening is
 * rendered once and hard-linked for every frame that uses it, so a long clip costs `levels` renders.
 * Runs in a worker thread (canvas and pixel loops are CPU work).
 */
export async function renderMouthFrames(req: RenderRequest): Promise<{ width: number; height: number; frames: number }> {
  const meta = await sharp(req.image).metadata();
  const fit = Math.min(1, req.maxSide / Math.max(meta.width!, meta.height!));
  const width = Math.max(2, Math.floor((meta.width! * fit) / 2) * 2);
  const height = Math.max(2, Math.floor((meta.height! * fit) / 2) * 2);
  const { data } = await sharp(req.image).resize(width, height, { fit: 'fill' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const base = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  const geo = mouthGeometry(req.landmarks, width / req.landmarks.width);
  const canvas = createCanvas(width, height);
  const rendered = new Map<number, string>();
  for (const [i, open] of req.openings.entries()) {
    const level = Math.round(open * req.levels);
    let file = rendered.get(level);
    if (!file) {
      file = path.join(req.outDir, `level_${String(level).padStart(3, '0')}.jpg`);
      drawFrame(canvas, base, width, height, geo, (level / req.levels) * geo.maxOpen);
      await fs.writeFile(file, await canvas.encode('jpeg', 92));
      rendered.set(level, file);
    }
    await fs.link(file, path.join(req.outDir, `frame_${String(i).padStart(5, '0')}.jpg`));
  }
  return { width, height, frames: req.openings.length };
}

/**
 * One frame with the jaw dropped by `drop` px: pixels below the lips' meeting line are pulled down by
 * drop·(column weight)·(row weight), the row weight fading out below the chin so the neck stretches
 * instead of tearing; then the gap between the lips is painted as the mouth's inside.
 */
export function drawFrame(canvas: Canvas, base: Uint8ClampedArray, W: number, H: number, g: MouthGeometry, drop: number): void {
  const ctx = canvas.getContext('2d');
  const out = new Uint8ClampedArray(base);
  if (drop >= 0.5) {
    const fade = Math.max(4, (g.chinY - contourY(g.lowerInner, g.centerX)) * 0.6);
    const x0 = Math.max(0, Math.floor(g.left));
    const x1 = Math.min(W - 1, Math.ceil(g.right));
    for (let x = x0; x <= x1; x++) {
      const dx = drop * columnWeight(g, x);
      if (dx < 0.05) continue;
      const line = (contourY(g.upperInner, x) + contourY(g.lowerInner, x)) / 2;
      const yEnd = Math.min(H - 1, Math.ceil(g.chinY + fade + dx));
      for (let y = Math.max(0, Math.floor(line)); y <= yEnd; y++) {
        // Inverse map: the displacement at the output row, using the rigid drop down to the chin, then fading.
        const below = y - g.chinY;
        const wy = below <= 0 ? 1 : Math.max(0, 1 - below / fade);
        const sy = Math.max(line, y - dx * wy);
        const y0 = Math.floor(sy);
        const t = sy - y0;
        const o = (y * W + x) * 4;
        const a = (y0 * W + x) * 4;
        const b = (Math.min(H - 1, y0 + 1) * W + x) * 4;
        for (let c = 0; c < 3; c++) out[o + c] = base[a + c]! * (1 - t) + base[b + c]! * t;
      }
    }
  }
  ctx.putImageData(new ImageData(out, W, H), 0, 0);
  if (drop < 0.5) return;
  // The opening: upper inner lip (fixed) to the lower inner lip at its dropped position.
  const pts = g.upperInner.map(([x, y]) => [x, y] as Pt);
  const lower = [...g.lowerInner].reverse().map(([x, y]) => [x, y + drop * columnWeight(g, x)] as Pt);
  ctx.save();
  ctx.beginPath();
  ctx.moveTo(g.left, contourY(g.upperInner, g.left));
  for (const [x, y] of pts) ctx.lineTo(x, y);
  ctx.lineTo(g.right, contourY(g.upperInner, g.right));
  for (const [x, y] of lower) ctx.lineTo(x, y);
  ctx.closePath();
  const top = contourY(g.upperInner, g.centerX);
  const grad = ctx.createLinearGradient(0, top, 0, top + drop + 2);
  grad.addColorStop(0, '#2b0b0e');
  grad.addColorStop(1, '#4a1518');
  ctx.fillStyle = grad;
  ctx.fill();
  // A hint of upper teeth just under the lip, inside the opening only.
  ctx.clip();
  const teeth = Math.max(1, drop * 0.18);
  ctx.beginPath();
  pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y - 1) : ctx.moveTo(x, y - 1)));
  for (const [x, y] of [...pts].reverse()) ctx.lineTo(x, y + teeth);
  ctx.closePath();
  ctx.fillStyle = 'rgba(236, 230, 218, 0.85)';
  ctx.fill();
  ctx.restore();
}
