import type { EngineBinding } from '../../types.js';
import { bindings as deepgram } from './deepgram.js';
import { bindings as elevenlabs } from './elevenlabs.js';

/** Hosted sub-model id → the adapter that runs it, from one file per provider. */
export const bindings: Record<string, EngineBinding> = {
  ...elevenlabs,
  ...deepgram,
};
