import sharp from 'sharp';
import { EngineInputError } from '../../../types.js';
import { localEngine } from '../common/engine.js';
import { parseHex, type Rgb } from '../common/color.js';
import { int, num, str, strList } from '../common/inputs.js';
import { fetchImage, imageOutput, type LoadedImage } from '../common/media.js';

export const COMPOSITE_LAYOUTS = ['overlay', 'horizontal', 'vertical', 'grid'] as const;
export const COMPOSITE_POSITIONS = ['center', 'north', 'south', 'east', 'west', 'northeast', 'northwest', 'southeast', 'southwest'] as const;
export const COMPOSITE_BLENDS = ['over', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'difference', 'soft-light', 'hard-light'] as const;
const MAX_SIDE = 8192;

/** Multiplies an image's alpha by `opacity` (a 1×1 tiled dest-in layer scales every alpha value). */
async function withOpacity(png: Buffer, opacity: number): Promise<Buffer> {
  if (opacity >= 1) return png;
  const a = Math.round(255 * Math.max(0, opacity));
  return sharp(png).ensureAlpha()
    .composite([{ input: Buffer.from([255, 255, 255, a]), raw: { width: 1, height: 1, channels: 4 }, tile: true, blend: 'dest-in' }])
    .png().toBuffer();
}

async function overlay(images: LoadedImage[], input: Record<string, unknown>): Promise<Buffer> {
  const [base, ...layers] = images as [LoadedImage, ...LoadedImage[]];
  const gravity = str(input, 'position', 'center');
  if (!(COMPOSITE_POSITIONS as readonly string[]).includes(gravity)) throw new EngineInputError(`position must be one of ${COMPOSITE_POSITIONS.join(', ')}`);
  const blend = str(input, 'blend', 'over') as (typeof COMPOSITE_BLENDS)[number];
  if (!COMPOSITE_BLENDS.includes(blend)) throw new EngineInputError(`blend must be one of ${COMPOSITE_BLENDS.join(', ')}`);
  const opacity = num(input, 'opacity', 1);
  const scale = num(input, 'overlay_scale', 0);
  const parts: sharp.OverlayOptions[] = [];
  for (const layer of layers) {
    // Each layer is scaled to a fraction of the base width (0 = as is) and never larger than the base.
    const targetW = scale > 0 ? Math.max(1, Math.round(base.width * scale)) : layer.width;
    const png = await sharp(layer.bytes)
      .resize({ width: Math.min(targetW, base.width), height: base.height, fit: 'inside', withoutEnlargement: scale <= 0 })
      .png().toBuffer();
    parts.push({ input: await withOpacity(png, opacity), gravity, blend });
  }
  return sharp(base.bytes).composite(parts).png().toBuffer();
}

async function tiles(images: LoadedImage[], layout: 'horizontal' | 'vertical' | 'grid', gap: number, bg: Rgb): Promise<Buffer> {
  const first = images[0]!;
  const n = images.length;
  const cols = layout === 'horizontal' ? n : layout === 'vertical' ? 1 : Math.ceil(Math.sqrt(n));
  const rows = Math.ceil(n / cols);
  // Cells take the first image's shape, shrunk so the whole sheet stays under MAX_SIDE.
  let cellW = first.width;
  let cellH = first.height;
  const shrink = Math.min(1, (MAX_SIDE - gap * (cols + 1)) / (cellW * cols), (MAX_SIDE - gap * (rows + 1)) / (cellH * rows));
  cellW = Math.max(1, Math.floor(cellW * shrink));
  cellH = Math.max(1, Math.floor(cellH * shrink));
  const width = cols * cellW + gap * (cols + 1);
  const height = rows * cellH + gap * (rows + 1);
  const parts: sharp.OverlayOptions[] = [];
  for (let i = 0; i < n; i++) {
    const img = images[i]!;
    // Each image keeps its aspect ratio, letterboxed into its cell on a transparent margin.
    const png = await sharp(img.bytes)
      .resize({ width: cellW, height: cellH, fit: 'contain', background: { ...bg, alpha: 0 } })
      .png().toBuffer();
    const col = i % cols;
    const row = Math.floor(i / cols);
    parts.push({ input: png, left: gap + col * (cellW + gap), top: gap + row * (cellH + gap) });
  }
  return sharp({ create: { width, height, channels: 4, background: { ...bg, alpha: 1 } } }).composite(parts).png().toBuffer();
}

/**
 * composite_images: layers images over the first one (position, opacity, blend mode) or lays them out
 * side by side, stacked, or in a grid with a gap and background colour.
 */
export const compositeEngine = localEngine({
  id: 'image-composite',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const urls = strList(req.input, 'image_urls');
    if (urls.length < 2) throw new EngineInputError('image_urls needs at least two images');
    const layout = str(req.input, 'layout', 'overlay') as (typeof COMPOSITE_LAYOUTS)[number];
    if (!COMPOSITE_LAYOUTS.includes(layout)) throw new EngineInputError(`layout must be one of ${COMPOSITE_LAYOUTS.join(', ')}`);
    const images: LoadedImage[] = [];
    for (const [i, url] of urls.entries()) {
      images.push(await fetchImage(ctx, url, `image_urls[${i}]`));
      ctx.progress(0.5 * ((i + 1) / urls.length), 'fetching images');
    }
    const data = layout === 'overlay'
      ? await overlay(images, req.input)
      : await tiles(images, layout, int(req.input, 'gap', 0, 0, 512), parseHex(str(req.input, 'background', '#ffffff'), 'background'));
    return { result: [await imageOutput(data, 'composite.png')] };
  },
});
