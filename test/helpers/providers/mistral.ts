import { FakeServer, type FakeReply, type FakeRequest } from './server.js';

/**
 * A fake of Mistral's OCR API (POST /v1/ocr, https://docs.mistral.ai/api), as published:
 * `Authorization: Bearer <key>` (401 `{message}` otherwise); body `{model, document: {type:
 * "document_url", document_url} | {type: "image_url", image_url}}`, data: URIs accepted; answer
 * `{pages: [{index, markdown, images, dimensions}], model, usage_info}`; bad input 422 `{detail: [...]}`.
 * A PDF "has" two pages, an image one.
 */
export async function startMistralFake(apiKey: string): Promise<FakeServer> {
  const route = (req: FakeRequest): FakeReply => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return { status: 401, json: { message: 'Unauthorized', request_id: 'r' } };
    if (req.method !== 'POST' || req.path !== '/v1/ocr') return { status: 404, json: { message: 'Not Found' } };
    const b = req.json();
    if (typeof b.model !== 'string' || !b.model.startsWith('mistral-ocr')) return { status: 400, json: { message: `Invalid model: ${String(b.model)}`, type: 'invalid_model' } };
    const d = b.document ?? {};
    const url = d.type === 'document_url' ? d.document_url : d.type === 'image_url' ? d.image_url : undefined;
    if (typeof url !== 'string') return { status: 422, json: { detail: [{ loc: ['body', 'document'], msg: 'Input should be a document_url or image_url chunk', type: 'union_tag_invalid' }] } };
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!m && !/^https:\/\//.test(url)) return { status: 422, json: { detail: [{ loc: ['body', 'document', d.type], msg: 'URL must be https or a data URI', type: 'url_parsing' }] } };
    const bytes = m ? Buffer.from(m[2]!, 'base64') : Buffer.alloc(0);
    if (d.type === 'document_url' && m && bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return { status: 400, json: { message: 'Document could not be read as PDF', type: 'invalid_request_file' } };
    const pageCount = d.type === 'document_url' ? 2 : 1;
    const pages = Array.from({ length: pageCount }, (_, i) => ({ index: i, markdown: `# Page ${i + 1}\n\nHello from page ${i + 1}.`, images: [], dimensions: { dpi: 200, height: 2200, width: 1700 } }));
    return { json: { pages, model: 'mistral-ocr-2505', document_annotation: null, usage_info: { pages_processed: pageCount, doc_size_bytes: bytes.length } } };
  };
  return new FakeServer(route).start();
}
