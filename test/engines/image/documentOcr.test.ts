import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { findBinary } from '../../../src/engines/local/audio/binaries.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { documentKind, documentMarkdown, documentOcrEngine, TEXT_PREVIEW_CHARS, textPreview } from '../../../src/engines/local/image/ml/documentOcr.js';
import { EngineInputError, type FileOutput } from '../../../src/engines/types.js';
import { dataUrl } from '../../helpers/engineContext.js';
import { png, run, text, textPng } from './fixtures.js';

after(() => closeThreadPools());

/** A one-page PDF that shows `line` in Helvetica (a standard font: nothing embedded), with a correct xref. */
export function textPdf(line: string): Buffer {
  const content = `BT /F1 36 Tf 40 700 Td (${line.replace(/[()\\]/g, '\\$&')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** The first bytes of a .docx: a zip whose first part is under word/. */
const docx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('word/document.xml')]);

describe('document_ocr (Tesseract, local)', () => {
  it('reads an image: text, and the whole text as a Markdown file at content_url', async () => {
    const { out } = await run(documentOcrEngine, { file_url: png(textPng(['Invoice 2048 paid', 'Quick brown fox'], 640)) });
    assert.deepEqual(Object.keys(out).sort(), ['content_url', 'text'], 'the hosted output keys');
    const read = text(out, 'text').toLowerCase();
    for (const w of ['invoice', '2048', 'paid', 'quick', 'brown', 'fox']) assert.ok(read.includes(w), `"${w}" in ${JSON.stringify(read)}`);
    const file = out.content_url as FileOutput;
    assert.equal(file.kind, 'file');
    assert.match(file.contentType, /^text\/markdown/);
    assert.ok(file.data.toString('utf8').toLowerCase().includes('quick brown fox'));
  });

  it('reads a PDF\'s pages with pdftoppm where poppler-utils is installed, and refuses PDFs clearly where it is not', async () => {
    const input = { file_url: dataUrl(textPdf('Hello PDF 77'), 'application/pdf') };
    if (findBinary('pdftoppm')) {
      const { out } = await run(documentOcrEngine, input);
      assert.match(text(out, 'text'), /Hello PDF 77/);
    }
    // Without pdftoppm on PATH (a server without poppler-utils):
    const path = process.env.PATH;
    process.env.PATH = '';
    try {
      await assert.rejects(run(documentOcrEngine, input), (e: Error) => e instanceof EngineInputError && /poppler-utils/.test(e.message));
    } finally {
      process.env.PATH = path;
    }
  });

  it('refuses Office files and unknown bytes with what to do instead', async () => {
    await assert.rejects(run(documentOcrEngine, { file_url: dataUrl(docx, 'application/octet-stream') }), (e: Error) => e instanceof EngineInputError && /\.docx file.*export it as PDF/.test(e.message));
    await assert.rejects(run(documentOcrEngine, { file_url: dataUrl(Buffer.from('just some words'), 'text/plain') }), /must be a PDF or an image/);
  });

  it('knows documents by their bytes, and shapes the text (pure)', () => {
    assert.equal(documentKind(textPdf('x')), 'pdf');
    assert.equal(documentKind(docx), 'docx');
    assert.equal(documentKind(textPng(['x'], 100)), 'image');
    assert.equal(documentKind(Buffer.from('hello')), 'unknown');
    assert.equal(documentMarkdown(['one']), 'one\n');
    assert.equal(documentMarkdown(['one', 'two'], 'Only the first 2 of 9 pages were read.'), '## Page 1\n\none\n\n## Page 2\n\ntwo\n\n_Only the first 2 of 9 pages were read._\n');
    assert.equal(textPreview(['a', 'b']), 'a\n\nb');
    const long = textPreview(['x'.repeat(TEXT_PREVIEW_CHARS + 10)]);
    assert.ok(long.startsWith('x'.repeat(TEXT_PREVIEW_CHARS)) && long.endsWith('content_url has the whole text)'));
  });
});
