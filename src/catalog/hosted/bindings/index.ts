import type { EngineBinding } from '../../types.js';
import { bindings as deepgram } from './deepgram.js';
import { bindings as elevenlabs } from './elevenlabs.js';
import { bindings as fal } from './fal.js';
import { bindings as google } from './google.js';
import { bindings as hedra } from './hedra.js';
import { bindings as openai } from './openai.js';
import { bindings as openrouter } from './openrouter.js';
import { bindings as replicate } from './replicate.js';
import { bindings as wavespeed } from './wavespeed.js';
import { bindings as xai } from './xai.js';

/**
 * Every hosted sub-model's engine binding, keyed by hosted sub-model id; one file per provider. A sub-model
 * with none is still listed, unavailable ("no adapter for provider X", engines/noAdapter.ts). `./mistral.js`
 * (document_ocr through Mistral's OCR API) is left out: document_ocr runs on a local engine.
 */
export const hostedBindings: Record<string, EngineBinding> = {
  ...openrouter,
  ...fal,
  ...openai,
  ...replicate,
  ...elevenlabs,
  ...deepgram,
  ...xai,
  ...google,
  ...wavespeed,
  ...hedra,
};
