import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createMistralEngine, type MistralSettings } from '../../../../src/engines/remote/mistral.js';
import { EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/mistral.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startMistralFake } from '../../../helpers/providers/mistral.js';
import { makePng } from '../../../helpers/providers/media.js';
import type { FakeServer } from '../../../helpers/providers/server.js';

const KEY = 'mistral-test-key-44aa';
let fake: FakeServer;
before(async () => {
  fake = await startMistralFake(KEY);
});
after(() => fake.close());

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const settings = (o: Partial<MistralSettings> = {}): MistralSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/v1`, retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 1000, requestTimeoutMs: 5000 }, ...o });
function run(input: Record<string, unknown>, o: Partial<MistralSettings> = {}) {
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return createMistralEngine(settings(o)).execute({ nodeType: 'document_ocr', subModelId: 'document_ocr', input, options: bindings.document_ocr!.options ?? {} }, t.ctx);
}

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createMistralEngine({}).availability(), { available: false, reason: 'set MISTRAL_API_KEY to run models on Mistral' });
});

test('a PDF is read page by page into text and a Markdown file under the hosted keys', async () => {
  const out = await run({ file_url: dataUrl(PDF, 'application/pdf') });
  assert.deepEqual(out.text, { kind: 'text', text: '# Page 1\n\nHello from page 1.\n\n# Page 2\n\nHello from page 2.' });
  const file = out.content_url as FileOutput;
  assert.equal(file.contentType, 'text/markdown');
  assert.equal(file.data.toString(), (out.text as { text: string }).text);
  const body = fake.calls.at(-1)!.json();
  assert.deepEqual(body, { model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: `data:application/pdf;base64,${PDF.toString('base64')}` } });
});

test('an image goes as image_url; other files are refused before anything is sent; errors are clear', async () => {
  await run({ file_url: dataUrl(makePng(4, 4), 'image/png') });
  assert.equal(fake.calls.at(-1)!.json().document.type, 'image_url');
  const n = fake.calls.length;
  await assert.rejects(run({ file_url: dataUrl(Buffer.from('hello'), 'text/plain') }), (e: Error) => e instanceof EngineInputError && /PDF or an image/.test(e.message));
  assert.equal(fake.calls.length, n);
  await assert.rejects(run({ file_url: dataUrl(PDF, 'application/pdf') }, { apiKey: 'nope-nope-1' }), /Mistral refused the credentials \(HTTP 401\): Unauthorized; check MISTRAL_API_KEY/);
  fake.inject('POST', /\/v1\/ocr$/, { json: { pages: [], model: 'x', usage_info: {} } });
  await assert.rejects(run({ file_url: dataUrl(PDF, 'application/pdf') }), /Mistral answered without pages of text/);
});
