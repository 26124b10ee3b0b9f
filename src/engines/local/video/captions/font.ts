import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Captions are drawn with DejaVu Sans Bold from the npm package dejavu-fonts-ttf, under a family name of
 * our own, so the output looks the same on every machine whatever fonts the system has (and DejaVu covers
 * Latin, Greek, Cyrillic and many symbols).
 */
export const CAPTION_FAMILY = 'Atelier Captions';

export function captionFontPath(): string | undefined {
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json'));
    const file = path.join(dir, 'ttf', 'DejaVuSans-Bold.ttf');
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
