import type { Engine, EngineOutputs, FileOutput } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { unconfiguredEngine } from './job.js';
import { firstUrl, str } from './providerInputs.js';
import { runScope } from './signals.js';
import type { RemoteCommonSettings } from './settings.js';

/**
 * Mistral's OCR API (POST https://api.mistral.ai/v1/ocr, `Authorization: Bearer <key>`): `{ model,
 * document: { type: "document_url", document_url } | { type: "image_url", image_url } }`, data: URIs
 * accepted; the answer `{ pages: [{ index, markdown, images, dimensions }], model, usage_info }`.
 * The document is fetched here (guarded) and sent inline, so own-file URLs work too.
 *
 * The hosted document_ocr answers `text` (the pages' Markdown) and `content_url` (a link to it): here
 * the Markdown is stored as a file under `content_url`. Binding options: model (e.g. `mistral-ocr-latest`).
 */
export interface MistralSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.mistral.ai/v1. */
  baseUrl?: string;
}

export const MISTRAL_DEFAULT_BASE_URL = 'https://api.mistral.ai/v1';
const REQUIREMENTS = ['MISTRAL_API_KEY (optional MISTRAL_BASE_URL)'];

interface OcrResponse { pages?: Array<{ index?: number; markdown?: string }> }

export function createMistralEngine(s: MistralSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('mistral', REQUIREMENTS, 'set MISTRAL_API_KEY to run models on Mistral');
  const client = new ProviderClient({
    label: 'Mistral',
    baseUrl: s.baseUrl || MISTRAL_DEFAULT_BASE_URL,
    headers: { authorization: `Bearer ${s.apiKey}` },
    secrets: [s.apiKey],
    credentialHint: 'MISTRAL_API_KEY',
    retry: s.retry,
  });
  return {
    id: 'mistral',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { input, options } = req;
      const url = firstUrl(input.file_url);
      if (!url) throw new EngineInputError('file_url is required');
      const scope = runScope(ctx);
      try {
        const doc = await ctx.fetchMedia(url, { accept: 'any' });
        const pdf = doc.bytes.subarray(0, 5).toString('latin1') === '%PDF-';
        const image = doc.contentType.startsWith('image/');
        if (!pdf && !image) throw new EngineInputError('file_url must be a PDF or an image');
        const data = `data:${pdf ? 'application/pdf' : doc.contentType};base64,${doc.bytes.toString('base64')}`;
        ctx.progress(0.1, 'reading on Mistral');
        const res = await client.request('ocr', {
          json: { model: str(options.model) ?? 'mistral-ocr-latest', document: pdf ? { type: 'document_url', document_url: data } : { type: 'image_url', image_url: data } },
          signal: scope.signal,
          deadline: scope.deadline,
          retry: 'safe',
          timeoutMs: Math.max(client.policy.requestTimeoutMs, 300_000),
        });
        const pages = res.json<OcrResponse>().pages;
        if (!Array.isArray(pages) || pages.length === 0 || !pages.every((p) => typeof p.markdown === 'string')) throw new EngineError('Mistral answered without pages of text');
        const text = pages.map((p) => p.markdown!.trim()).join('\n\n');
        const file: FileOutput = { kind: 'file', data: Buffer.from(text, 'utf8'), contentType: 'text/markdown', filename: 'document.md' };
        ctx.progress(1, 'done');
        return { text: { kind: 'text', text }, content_url: file } satisfies EngineOutputs;
      } catch (err) {
        if (scope.stopped()) throw scope.stopError('Mistral OCR');
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}
