import type { EngineBinding } from '../../types.js';
import { bindings as deepgram } from './deepgram.js';
import { bindings as elevenlabs } from './elevenlabs.js';
import { bindings as google } from './google.js';
import { bindings as hedra } from './hedra.js';
import { bindings as wavespeed } from './wavespeed.js';
import { bindings as xai } from './xai.js';

/**
 * Hosted sub-model id → the adapter that runs it, from one file per provider. `./mistral.js` (document_ocr
 * through Mistral's OCR API) is left out: document_ocr runs on a local engine, and Mistral is its second route.
 */
export const bindings: Record<string, EngineBinding> = {
  ...elevenlabs,
  ...deepgram,
  ...xai,
  ...google,
  ...wavespeed,
  ...hedra,
};
