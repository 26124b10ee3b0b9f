import type { EngineBinding } from '../../types.js';

/**
 * The hosted `document_ocr` (providerType `mistral`) bound to Mistral's OCR API (src/engines/remote/mistral.ts).
 * The catalog may prefer a local OCR engine for it and keep this as the second route.
 */
export const bindings: Record<string, EngineBinding> = {
  document_ocr: { engine: 'mistral', options: { model: 'mistral-ocr-latest' } },
};
