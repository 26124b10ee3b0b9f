import path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';
import { packageDir } from './packages.js';

/**
 * Text is drawn with DejaVu TTFs from the dejavu-fonts-ttf npm package, registered under our own family
 * names, so output is the same on every machine whatever fonts the system has.
 */
export const FONTS = {
  sans: 'Atelier Sans',
  'sans-bold': 'Atelier Sans Bold',
  serif: 'Atelier Serif',
  'serif-bold': 'Atelier Serif Bold',
  mono: 'Atelier Mono',
  condensed: 'Atelier Condensed Bold',
} as const;

export type FontName = keyof typeof FONTS;

const FILES: Record<FontName, string> = {
  sans: 'DejaVuSans.ttf',
  'sans-bold': 'DejaVuSans-Bold.ttf',
  serif: 'DejaVuSerif.ttf',
  'serif-bold': 'DejaVuSerif-Bold.ttf',
  mono: 'DejaVuSansMono.ttf',
  condensed: 'DejaVuSansCondensed-Bold.ttf',
};

let registered = false;

/** Idempotent; called by every module that draws text (once per worker thread). */
export function registerFonts(): void {
  if (registered) return;
  const dir = path.join(packageDir('dejavu-fonts-ttf'), 'ttf');
  for (const [name, file] of Object.entries(FILES) as Array<[FontName, string]>) {
    const ok = GlobalFonts.registerFromPath(path.join(dir, file), FONTS[name]);
    if (!ok) throw new Error(`could not register font ${file}`);
  }
  registered = true;
}

/** A CSS font string for canvas using one of our registered families. */
export function font(name: FontName, px: number): string {
  return `${Math.max(1, Math.round(px))}px "${FONTS[name]}"`;
}
