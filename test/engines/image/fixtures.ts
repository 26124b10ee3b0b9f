import fs from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import type { Engine, EngineOutputs, FileOutput, OutputValue } from '../../../src/engines/types.js';
import { font, registerFonts } from '../../../src/engines/local/image/common/fonts.js';
import { dataUrl, testContext } from '../../helpers/engineContext.js';

/**
 * Fixtures drawn on the fly (never downloaded), and a runner that executes an engine the way the worker
 * does: real scratch folder, data: URL inputs.
 */

/** Debian python-matplotlib-data's 512×600 portrait, when installed. */
export const PORTRAIT_PATH = ['/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg', '/usr/share/matplotlib/sample_data/grace_hopper.jpg']
  .find((p) => fs.existsSync(p));
export const NO_PORTRAIT = PORTRAIT_PATH ? false : 'grace_hopper.jpg is absent: install the Debian package python-matplotlib-data';

export function portraitUrl(): string {
  return dataUrl(fs.readFileSync(PORTRAIT_PATH!), 'image/jpeg');
}

/** A 320×240 picture of four coloured blocks on white: red top-left, green top-right, blue bottom-left, black bottom-right. */
export function shapesPng(width = 320, height = 240): Buffer {
  const c = createCanvas(width, height);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  const w = width / 2;
  const h = height / 2;
  [['#ff0000', 0, 0], ['#00ff00', w, 0], ['#0000ff', 0, h], ['#000000', w, h]].forEach(([color, x, y]) => {
    g.fillStyle = color as string;
    g.fillRect((x as number) + 10, (y as number) + 10, w - 20, h - 20);
  });
  return c.toBuffer('image/png');
}

/** Black words on white in the bundled DejaVu font, large enough for OCR. */
export function textPng(lines: string[], width = 640, lineHeight = 70): Buffer {
  registerFonts();
  const c = createCanvas(width, lineHeight * lines.length + 40);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#111111';
  g.font = font('sans', 44);
  g.textBaseline = 'middle';
  lines.forEach((l, i) => g.fillText(l, 24, 20 + lineHeight * (i + 0.5)));
  return c.toBuffer('image/png');
}

export const png = (b: Buffer) => dataUrl(b, 'image/png');

export async function run(engine: Engine, input: Record<string, unknown>, options: Record<string, unknown> = {}, nodeType = 'test') {
  const { ctx, progress, cleanup } = testContext({ timeoutMs: 300_000 });
  try {
    const out = await engine.execute({ nodeType, subModelId: nodeType, input, options }, ctx);
    return { out, progress };
  } finally {
    cleanup();
  }
}

export function files(out: EngineOutputs, name = 'result'): FileOutput[] {
  const v = out[name];
  const list = (Array.isArray(v) ? v : v ? [v] : []) as OutputValue[];
  return list.filter((x): x is FileOutput => x.kind === 'file');
}

export function text(out: EngineOutputs, name = 'output'): string {
  const v = out[name] as OutputValue | undefined;
  if (!v || Array.isArray(v) || v.kind !== 'text') throw new Error(`output ${name} is not text`);
  return v.text;
}

/** Decodes a file output and returns its metadata (throws if it does not decode). */
export async function meta(f: FileOutput) {
  return sharp(f.data).metadata();
}

/** RGBA of one pixel of an encoded image. */
export async function pixel(data: Buffer, x: number, y: number): Promise<[number, number, number, number]> {
  const { data: raw, info } = await sharp(data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * 4;
  return [raw[o]!, raw[o + 1]!, raw[o + 2]!, raw[o + 3]!];
}
