import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { luminance, toHex } from '../common/color.js';
import { font, registerFonts } from '../common/fonts.js';
import { kmeans } from './kmeans.js';

export interface PaletteColor {
  hex: string;
  rgb: [number, number, number];
  /** Fraction of the (opaque) picture closest to this colour. */
  share: number;
}

/** Samples at most 160×160 pixels: a palette needs proportions, not detail. */
export async function extractPalette(bytes: Uint8Array, count: number): Promise<PaletteColor[]> {
  const { data, info } = await sharp(bytes).resize(160, 160, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const px: number[] = [];
  for (let i = 0; i < info.width * info.height; i++) {
    if (data[i * 4 + 3]! < 128) continue; // transparent pixels are not part of the picture's colours
    px.push(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!);
  }
  const clusters = kmeans(Float32Array.from(px), count);
  const total = clusters.reduce((s, c) => s + c.count, 0) || 1;
  return clusters.map((c) => ({
    hex: toHex(c),
    rgb: [Math.round(c.r), Math.round(c.g), Math.round(c.b)],
    share: Math.round((c.count / total) * 1000) / 1000,
  }));
}

/** A swatch strip: one band per colour, as wide as its share, labelled with its hex code. */
export async function renderSwatch(colors: PaletteColor[], width = 800, height = 200): Promise<Uint8Array> {
  registerFonts();
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  let x = 0;
  g.textAlign = 'center';
  g.textBaseline = 'bottom';
  for (const [i, c] of colors.entries()) {
    const w = i === colors.length - 1 ? width - x : Math.round(c.share * width);
    g.fillStyle = c.hex;
    g.fillRect(x, 0, w, height);
    const [r, gg, b] = c.rgb;
    g.fillStyle = luminance({ r, g: gg, b }) > 0.55 ? '#000000' : '#ffffff';
    g.font = font('mono', Math.min(18, Math.max(9, w / 5.5)));
    // Label only bands wide enough to hold their code.
    if (g.measureText(c.hex).width + 6 <= w) g.fillText(c.hex, x + w / 2, height - 8);
    x += w;
  }
  return canvas.encode('png');
}

export async function paletteWork(bytes: Uint8Array, count: number): Promise<{ colors: PaletteColor[]; swatch: Uint8Array }> {
  const colors = await extractPalette(bytes, count);
  return { colors, swatch: await renderSwatch(colors) };
}
