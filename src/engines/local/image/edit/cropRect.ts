import { EngineInputError } from '../../../types.js';

/** A rectangle in pixels of the input image. */
export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

type Input = Record<string, unknown>;

const given = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function percent(input: Input, name: string, fallback: number): number {
  const v = given(input[name]) ?? fallback;
  if (v < 0 || v > 100) throw new EngineInputError(`${name} must be between 0 and 100`);
  return v;
}

/**
 * The crop rectangle of crop_image's hosted inputs (catalog/models/utilities.ts), pure. Pixels win: when
 * any of x_px, y_px, width_px, height_px (or the `crop` object's x, y, width, height) is given, the
 * rectangle is in pixels; a missing size is the rest of the image from the position, and a missing
 * position centres the rectangle. Otherwise it is in percent of the image (defaults 0, 0, 100, 100).
 * The result is clipped to the image and at least one pixel each way; a rectangle that starts past the
 * image is an input error.
 */
export function cropRect(input: Input, imageWidth: number, imageHeight: number): Rect {
  const crop = input.crop && typeof input.crop === 'object' && !Array.isArray(input.crop) ? (input.crop as Input) : {};
  const pxX = given(input.x_px) ?? given(crop.x);
  const pxY = given(input.y_px) ?? given(crop.y);
  const pxW = given(input.width_px) ?? given(crop.width);
  const pxH = given(input.height_px) ?? given(crop.height);
  let left: number;
  let top: number;
  let width: number;
  let height: number;
  if ([pxX, pxY, pxW, pxH].some((v) => v !== undefined)) {
    for (const [name, v, min] of [['x_px', pxX, 0], ['y_px', pxY, 0], ['width_px', pxW, 1], ['height_px', pxH, 1]] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < min)) throw new EngineInputError(`${name} must be a whole number of at least ${min}`);
    }
    width = pxW ?? imageWidth - (pxX ?? 0);
    height = pxH ?? imageHeight - (pxY ?? 0);
    left = pxX ?? Math.max(0, Math.floor((imageWidth - width) / 2));
    top = pxY ?? Math.max(0, Math.floor((imageHeight - height) / 2));
  } else {
    const x = percent(input, 'x_percent', 0);
    const y = percent(input, 'y_percent', 0);
    const w = percent(input, 'width_percent', 100);
    const h = percent(input, 'height_percent', 100);
    left = Math.round((x * imageWidth) / 100);
    top = Math.round((y * imageHeight) / 100);
    // At least one pixel: a 0% width still cuts the column at x.
    width = Math.max(1, Math.round((w * imageWidth) / 100));
    height = Math.max(1, Math.round((h * imageHeight) / 100));
    left = Math.min(left, imageWidth - 1);
    top = Math.min(top, imageHeight - 1);
  }
  if (left >= imageWidth || top >= imageHeight) {
    throw new EngineInputError(`the crop rectangle starts at (${left}, ${top}), outside the ${imageWidth}×${imageHeight} image`);
  }
  width = Math.max(1, Math.min(width, imageWidth - left));
  height = Math.max(1, Math.min(height, imageHeight - top));
  return { left, top, width, height };
}
