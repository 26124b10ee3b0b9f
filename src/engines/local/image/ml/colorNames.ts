import type { Rgb } from '../common/color.js';

/** Plain colour names by hue/lightness/saturation, for sentences; not a colour-science reference. */
export function colorName({ r, g, b }: Rgb): string {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const l = (max + min) / 2;
  const d = max - min;
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  if (s < 0.15 || d < 0.08) {
    if (l < 0.15) return 'black';
    if (l < 0.4) return 'dark grey';
    if (l < 0.75) return 'grey';
    return 'white';
  }
  let h: number;
  const R = r / 255; const G = g / 255; const B = b / 255;
  if (max === R) h = ((G - B) / d) % 6;
  else if (max === G) h = (B - R) / d + 2;
  else h = (R - G) / d + 4;
  h = (h * 60 + 360) % 360;
  const base =
    h < 15 ? 'red' : h < 40 ? 'orange' : h < 65 ? 'yellow' : h < 160 ? 'green' : h < 195 ? 'teal' : h < 255 ? 'blue' : h < 290 ? 'purple' : h < 340 ? 'pink' : 'red';
  // Dark oranges read as brown; pale reds as pink.
  if ((base === 'orange' || base === 'yellow') && l < 0.35) return 'brown';
  if (base === 'red' && l > 0.75) return 'pink';
  if (l < 0.25) return `dark ${base}`;
  if (l > 0.78) return `light ${base}`;
  return base;
}
