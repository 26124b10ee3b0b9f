import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { parseTsv, tesseractCliEngine } from '../../../src/engines/local/image/cli/tesseractCli.js';
import { ocrEngine } from '../../../src/engines/local/image/ml/ocr.js';
import { paddleOcrEngine } from '../../../src/engines/local/image/ml/paddleOcr.js';
import type { OcrBox } from '../../../src/engines/local/image/ml/ocrWords.js';
import { files, meta, png, run, text, textPng } from './fixtures.js';

after(() => closeThreadPools());
const picture = textPng(['Invoice 2048 paid', 'Quick brown fox'], 640);

function checkWords(out: Awaited<ReturnType<typeof run>>['out']) {
  const recognised = text(out).toLowerCase();
  for (const w of ['invoice', '2048', 'paid', 'quick', 'brown', 'fox']) assert.ok(recognised.includes(w), `"${w}" in ${JSON.stringify(recognised)}`);
  const { boxes: words, unit } = JSON.parse(text(out, 'boxes')) as { boxes: OcrBox[]; unit: string };
  assert.equal(unit, 'word');
  const invoice = words.find((w) => w.text.toLowerCase().includes('invoice'))!;
  // The first line is drawn from x=24 around y=55 (see textPng).
  assert.ok(invoice.box.x >= 15 && invoice.box.x <= 35, `box x ${invoice.box.x}`);
  assert.ok(invoice.box.y > 25 && invoice.box.y < 60, `box y ${invoice.box.y}`);
  assert.ok(invoice.confidence > 60);
}

describe('OCR engines', () => {
  it('ocr_image (tesseract.js) reads drawn words with their boxes', async (t) => {
    const started = Date.now();
    const { out } = await run(ocrEngine, { image_url: png(picture), layout: 'auto' });
    t.diagnostic(`tesseract.js first call (loads the model): ${Date.now() - started} ms`);
    checkWords(out);
    const annotated = files(out)[0]!;
    assert.deepEqual([(await meta(annotated)).width, (await meta(annotated)).height], [640, 180]);
    const again = Date.now();
    const { out: line } = await run(ocrEngine, { image_url: png(textPng(['HELLO 42'], 320)), layout: 'single_line' });
    t.diagnostic(`tesseract.js warm call: ${Date.now() - again} ms`);
    assert.match(text(line), /HELLO 42/);
  });

  it('ocr_image (PaddleOCR) reads the drawn lines with line boxes', async (t) => {
    const started = Date.now();
    const { out } = await run(paddleOcrEngine, { image_url: png(picture) });
    t.diagnostic(`PaddleOCR first call (loads the model): ${Date.now() - started} ms`);
    assert.deepEqual(text(out).split('\n'), ['Invoice 2048 paid', 'Quick brown fox']);
    const { boxes, unit } = JSON.parse(text(out, 'boxes')) as { boxes: OcrBox[]; unit: string };
    assert.equal(unit, 'line');
    assert.ok(boxes[0]!.box.x >= 15 && boxes[0]!.box.x <= 35 && boxes[0]!.box.y < boxes[1]!.box.y);
    assert.ok(boxes.every((b) => b.confidence > 80));
    assert.equal(files(out).length, 1);
  });

  it('tesseract_ocr (Debian tesseract) reads the same words', async (t) => {
    const a = await tesseractCliEngine.availability();
    if (!a.available) return t.skip(a.reason);
    const started = Date.now();
    const { out } = await run(tesseractCliEngine, { image_url: png(picture), layout: 'auto' });
    t.diagnostic(`tesseract CLI: ${Date.now() - started} ms`);
    checkWords(out);
  });

  it('parses tesseract TSV word rows and scales boxes back', () => {
    const tsv = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n'
      + '4\t1\t1\t1\t1\t0\t10\t10\t200\t40\t-1\t\n5\t1\t1\t1\t1\t1\t20\t30\t100\t40\t95.5\tHello\n5\t1\t1\t1\t1\t2\t130\t30\t10\t40\t12\t \n';
    assert.deepEqual(parseTsv(tsv, 2), [{ text: 'Hello', confidence: 96, box: { x: 10, y: 15, width: 50, height: 20 } }]);
  });
});
