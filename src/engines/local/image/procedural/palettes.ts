/**
 * Hand-picked five-colour palettes for the procedural engines: [background, ink, accent1, accent2, accent3].
 * A seed picks one when the caller does not name it, so results vary but stay harmonious.
 */
export const PALETTES: Record<string, [string, string, string, string, string]> = {
  sunset: ['#2b1d3a', '#fbe8d3', '#f76c5e', '#f9a03f', '#7b3f8c'],
  ocean: ['#0b2545', '#eef4ed', '#13315c', '#8da9c4', '#3e92cc'],
  forest: ['#1b2d1f', '#f1ead8', '#3f6634', '#a4b465', '#d9a441'],
  candy: ['#fff1f6', '#2d1e2f', '#ff6fb5', '#7bdff2', '#f7d486'],
  mono: ['#f4f4f1', '#161616', '#4a4a4a', '#9b9b9b', '#d3d3d3'],
  bauhaus: ['#f2ecdf', '#1d1d1b', '#d7263d', '#f5b700', '#1b4f9c'],
  neon: ['#0d0221', '#f6f7ff', '#ff2a6d', '#05d9e8', '#d1f7ff'],
  earth: ['#efe6d8', '#3b2a20', '#b5651d', '#7a8b4a', '#d9b26f'],
};

export type PaletteName = keyof typeof PALETTES;
export const PALETTE_NAMES = Object.keys(PALETTES) as PaletteName[];

export function pickPalette(name: string | undefined, rand: () => number): [string, string, string, string, string] {
  if (name && name !== 'auto' && name in PALETTES) return PALETTES[name]!;
  return PALETTES[PALETTE_NAMES[Math.floor(rand() * PALETTE_NAMES.length)]!]!;
}
