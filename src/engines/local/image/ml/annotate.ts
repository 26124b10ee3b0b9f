import type { SKRSContext2D } from '@napi-rs/canvas';
import { font } from '../common/fonts.js';

/** Colours cycled through for boxes, chosen to read on light and dark photos alike. */
export const BOX_COLORS = ['#ff3b30', '#34c759', '#0a84ff', '#ff9f0a', '#bf5af2', '#64d2ff', '#ffd60a', '#ff375f'];

/** A labelled rectangle: outline plus a filled tag above (or inside, at the top edge) the box. */
export function drawBox(g: SKRSContext2D, box: { x: number; y: number; width: number; height: number }, label: string, color: string, scale: number): void {
  const lw = Math.max(2, Math.round(2 * scale));
  g.lineWidth = lw;
  g.strokeStyle = color;
  g.strokeRect(box.x, box.y, box.width, box.height);
  const size = Math.max(11, Math.round(14 * scale));
  g.font = font('sans-bold', size);
  const tw = g.measureText(label).width + size * 0.6;
  const th = size * 1.4;
  const ty = box.y - th >= 0 ? box.y - th : box.y;
  g.fillStyle = color;
  g.fillRect(box.x - lw / 2, ty, tw, th);
  g.fillStyle = '#ffffff';
  g.textBaseline = 'middle';
  g.textAlign = 'left';
  g.fillText(label, box.x + size * 0.3 - lw / 2, ty + th / 2);
}

/** Line and label sizes grow with the picture so annotations stay legible on large images. */
export function annotationScale(width: number, height: number): number {
  return Math.max(1, Math.min(width, height) / 500);
}
