import { EngineInputError } from '../../../types.js';

export interface Rgb { r: number; g: number; b: number }

/** `#rrggbb` → components; anything else is an input error naming the field. */
export function parseHex(hex: string, field = 'color'): Rgb {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new EngineInputError(`${field} must be a colour like #1a2b3c`);
  const n = parseInt(m[1]!, 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function toHex({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((c) => Math.round(Math.max(0, Math.min(255, c))).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance 0..1 (sRGB weights), used to pick readable text over a colour. */
export function luminance({ r, g, b }: Rgb): number {
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

export function hsl(h: number, s: number, l: number): string {
  return `hsl(${((h % 360) + 360) % 360.0}, ${Math.round(s * 100)}%, ${Math.round(l * 100)}%)`;
}
