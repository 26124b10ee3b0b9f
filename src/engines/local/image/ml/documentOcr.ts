import fs from 'node:fs/promises';
import path from 'node:path';
import { findBinary } from '../../audio/binaries.js';
import { runBinary } from '../../ffmpeg.js';
import { runInThread } from '../../threads.js';
import { sniffContentType, mediaKind } from '../../../media.js';
import { EngineInputError, type EngineContext, type FileOutput } from '../../../types.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { str } from '../common/inputs.js';
import { decodeImage } from '../common/media.js';
import { OCR_WORK } from './ocr.js';
import { PSM_MODES } from './ocrWords.js';

/** Pages of a PDF read at most; the rest are left out and the text says so. */
export const MAX_PDF_PAGES = 50;
/** The `text` output holds at most this many characters; `content_url` always has all of it. */
export const TEXT_PREVIEW_CHARS = 20_000;
const PDF_DPI = 200;

export type DocumentKind = 'pdf' | 'docx' | 'pptx' | 'office' | 'image' | 'unknown';

/** What a document's bytes are, from their first bytes (and, for Office files, the zip's part names). Pure. */
export function documentKind(b: Buffer): DocumentKind {
  if (b.length >= 5 && b.toString('latin1', 0, 5) === '%PDF-') return 'pdf';
  if (b.length >= 4 && b.readUInt32LE(0) === 0x04034b50) {
    // An Office Open XML file is a zip whose part names are stored uncompressed in its headers.
    const head = b.subarray(0, Math.min(b.length, 64_000)).toString('latin1');
    return head.includes('word/') ? 'docx' : head.includes('ppt/') ? 'pptx' : 'office';
  }
  return mediaKind(sniffContentType(b)) === 'image' ? 'image' : 'unknown';
}

/** The whole text as Markdown: one section a page when there are several. Pure. */
export function documentMarkdown(pages: string[], note?: string): string {
  const body = pages.length === 1 ? pages[0]!.trim() : pages.map((p, i) => `## Page ${i + 1}\n\n${p.trim()}`).join('\n\n');
  return `${body}${note ? `\n\n_${note}_` : ''}\n`;
}

/** The `text` output: the plain text, cut at TEXT_PREVIEW_CHARS with a pointer to the full file. Pure. */
export function textPreview(pages: string[]): string {
  const text = pages.map((p) => p.trim()).join('\n\n');
  return text.length <= TEXT_PREVIEW_CHARS ? text : `${text.slice(0, TEXT_PREVIEW_CHARS)}… (cut here: content_url has the whole text)`;
}

function pdftoppm(): string | undefined {
  return findBinary('pdftoppm');
}

/** Renders a PDF's first pages to PNGs with poppler's pdftoppm; an unreadable PDF is an input error. */
async function pdfPages(bytes: Buffer, ctx: EngineContext): Promise<Buffer[]> {
  const bin = pdftoppm();
  if (!bin) {
    throw new EngineInputError('file_url is a PDF, and this server cannot render PDF pages: its operator must install the Debian package poppler-utils (pdftoppm). Send the pages as images instead.');
  }
  const pdf = path.join(ctx.tmpDir, 'document.pdf');
  const prefix = path.join(ctx.tmpDir, 'page');
  await fs.writeFile(pdf, bytes);
  ctx.progress(0.05, 'rendering pages');
  await runBinary(bin, ['-r', String(PDF_DPI), '-png', '-l', String(MAX_PDF_PAGES), pdf, prefix], {
    signal: ctx.signal, timeoutMs: Math.max(5_000, ctx.deadline - Date.now()),
  }).catch((e: Error) => {
    if (ctx.signal.aborted) throw e;
    throw new EngineInputError(`file_url could not be read as a PDF: ${e.message.slice(0, 300)}`);
  });
  // pdftoppm names pages page-1.png … page-10.png (zero-padded to the page count's width): sort by number.
  const names = (await fs.readdir(ctx.tmpDir)).filter((n) => /^page-\d+\.png$/.test(n));
  names.sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  if (names.length === 0) throw new EngineInputError('file_url is a PDF without pages');
  return Promise.all(names.map((n) => fs.readFile(path.join(ctx.tmpDir, n))));
}

/** The PDF's page count from poppler's pdfinfo (written by pdfPages' copy), when pdfinfo is there. */
async function pageCount(ctx: EngineContext): Promise<number | undefined> {
  const bin = findBinary('pdfinfo');
  if (!bin) return undefined;
  const file = path.join(ctx.tmpDir, 'document.pdf');
  const r = await runBinary(bin, [file], { signal: ctx.signal, timeoutMs: 30_000 }).catch(() => undefined);
  const m = r ? /^Pages:\s+(\d+)/m.exec(r.stdout.toString()) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * document_ocr (catalog/models/utilities.ts): the hosted model runs on Mistral's OCR; here the text is
 * read by Tesseract (tesseract.js, English) from an image, or from each page of a PDF rendered by
 * pdftoppm. Office files are refused with what to do instead. Outputs as the hosted service keys them:
 * `text` and `content_url` (a Markdown file with the whole text).
 */
export const documentOcrEngine = localEngine({
  id: 'document-ocr',
  requirements: ['npm: tesseract.js', 'npm: @tesseract.js-data/eng', 'Debian (PDF input): poppler-utils'],
  packages: ['tesseract.js', '@tesseract.js-data/eng', 'sharp'],
  async run(req, ctx) {
    const media = await ctx.fetchMedia(str(req.input, 'file_url'), { accept: 'any' });
    const kind = documentKind(media.bytes);
    let images: Buffer[];
    let note: string | undefined;
    switch (kind) {
      case 'image':
        images = [(await decodeImage(media.bytes, 'file_url')).bytes];
        break;
      case 'pdf': {
        images = await pdfPages(media.bytes, ctx);
        const total = await pageCount(ctx);
        if (total !== undefined && total > images.length) note = `Only the first ${images.length} of ${total} pages were read.`;
        break;
      }
      case 'docx':
      case 'pptx':
      case 'office':
        throw new EngineInputError(`file_url is a${kind === 'office' ? 'n Office' : ` .${kind}`} file, which this server does not read: export it as PDF (or images of its pages) and send that`);
      default:
        throw new EngineInputError('file_url must be a PDF or an image (PNG, JPEG, WebP, GIF, BMP, TIFF or AVIF), but its bytes are none of these');
    }
    const pages: string[] = [];
    for (let i = 0; i < images.length; i++) {
      ctx.progress(0.1 + 0.8 * (i / images.length), images.length > 1 ? `reading page ${i + 1} of ${images.length}` : 'reading text');
      const r = await runInThread<{ text: string }>('ocr', OCR_WORK, 'recognizeText', [images[i], PSM_MODES.auto], { signal: ctx.signal })
        .catch((e: unknown) => rethrowAborted(ctx, e));
      pages.push(r.text);
    }
    const md = Buffer.from(documentMarkdown(pages, note), 'utf8');
    const file: FileOutput = { kind: 'file', data: md, contentType: 'text/markdown; charset=utf-8', filename: 'document.md' };
    return { text: { kind: 'text', text: textPreview(pages) }, content_url: file };
  },
});
