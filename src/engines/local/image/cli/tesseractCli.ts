import fs from 'node:fs/promises';
import path from 'node:path';
import { runBinary } from '../../ffmpeg.js';
import { runInThread } from '../../threads.js';
import type { Availability } from '../../../types.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { fetchImage } from '../common/media.js';
import { OCR_WORK, ocrOutputs, psmOf } from '../ml/ocr.js';
import { prepareForOcr } from '../ml/ocrPrepare.js';
import type { OcrBox } from '../ml/ocrWords.js';

const INSTALL = 'install the Debian packages tesseract-ocr and tesseract-ocr-eng';

async function probe(): Promise<Availability> {
  try {
    const r = await runBinary('tesseract', ['--list-langs'], { timeoutMs: 10_000 });
    const langs = (r.stdout.toString() + r.stderr).split('\n').map((l) => l.trim());
    if (!langs.includes('eng')) return { available: false, reason: `tesseract has no English data: ${INSTALL}` };
    return { available: true };
  } catch {
    return { available: false, reason: `the tesseract binary is not on PATH: ${INSTALL}` };
  }
}

/** Words (level 5 rows) from tesseract's TSV output, scaled back to input pixels. */
export function parseTsv(tsv: string, factor: number): OcrBox[] {
  const words: OcrBox[] = [];
  for (const line of tsv.split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = cols.slice(11).join('\t').trim();
    if (!text) continue;
    const [left, top, width, height, conf] = cols.slice(6, 11).map(Number) as [number, number, number, number, number];
    words.push({
      text,
      confidence: Math.round(conf),
      box: { x: Math.round(left / factor), y: Math.round(top / factor), width: Math.round(width / factor), height: Math.round(height / factor) },
    });
  }
  return words;
}

/** tesseract_ocr: the system's Tesseract (Debian tesseract-ocr) run as a command, with English data. */
export const tesseractCliEngine = localEngine({
  id: 'tesseract-cli',
  requirements: ['Debian: tesseract-ocr', 'Debian: tesseract-ocr-eng'],
  packages: ['sharp', '@napi-rs/canvas'],
  check: probe,
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const psm = psmOf(req.input);
    const { png, factor } = await prepareForOcr(img.bytes);
    const input = path.join(ctx.tmpDir, 'ocr-input.png');
    const base = path.join(ctx.tmpDir, 'ocr-output');
    await fs.writeFile(input, png);
    ctx.progress(0.2, 'running tesseract');
    // One pass writes both the plain text and the word table.
    await runBinary('tesseract', [input, base, '-l', 'eng', '--psm', String(psm), '--dpi', '300', 'txt', 'tsv'], {
      signal: ctx.signal, timeoutMs: Math.max(5_000, ctx.deadline - Date.now()),
    });
    const text = (await fs.readFile(`${base}.txt`, 'utf8')).trim();
    const words = parseTsv(await fs.readFile(`${base}.tsv`, 'utf8'), factor);
    const confidence = words.length ? Math.round(words.reduce((s, w) => s + w.confidence, 0) / words.length) : 0;
    ctx.progress(0.8, 'drawing boxes');
    const annotated = await runInThread<Uint8Array>('image-canvas', OCR_WORK, 'annotateWords', [img.bytes, words], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    return ocrOutputs({ text, words, confidence, annotated }, 'word');
  },
});
