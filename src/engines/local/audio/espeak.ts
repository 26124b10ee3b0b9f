import { createRequire } from 'node:module';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { runInThread } from '../threads.js';
import { wavOutput } from './audioIo.js';
import { ESPEAK_VARIANTS, ESPEAK_VOICES } from './espeakVoices.js';
import type { EspeakResult } from './espeakThread.js';
import { moduleUrl } from '../moduleUrl.js';

const THREAD_MODULE = moduleUrl('./espeakThread.ts', import.meta.url);

/** Formant speech synthesis (eSpeak NG compiled to WASM): many languages, robotic but clear. */
export const espeakEngine: Engine = {
  id: 'espeak',
  requirements: ['npm: espeak-ng (WASM build of eSpeak NG)'],

  async availability() {
    try {
      createRequire(import.meta.url).resolve('espeak-ng');
      return { available: true };
    } catch {
      return { available: false, reason: 'the npm package espeak-ng is not installed: run npm ci' };
    }
  },

  async execute(req, ctx) {
    const text = String(req.input.text ?? '').trim();
    if (!text) throw new EngineInputError('text is empty: give the words to speak');
    const voice = String(req.input.voice ?? 'en-us');
    if (!(ESPEAK_VOICES as readonly string[]).includes(voice)) throw new EngineInputError(`unknown eSpeak voice "${voice}"`);
    const variant = String(req.input.variant ?? 'default');
    if (!(ESPEAK_VARIANTS as readonly string[]).includes(variant)) throw new EngineInputError(`unknown eSpeak voice variant "${variant}"`);
    const wordsPerMinute = Math.round(Number(req.input.speed ?? 175));
    const pitch = Math.round(Number(req.input.pitch ?? 50));

    ctx.progress(0.1, 'synthesizing speech');
    const result = await runInThread<EspeakResult>('espeak', THREAD_MODULE, 'synthesize', [{
      text, voice: variant === 'default' ? voice : `${voice}+${variant}`, wordsPerMinute, pitch,
    }], { signal: ctx.signal });
    if ('error' in result) throw new EngineError(`espeak-ng failed: ${result.error}`);
    ctx.progress(1, 'done');
    const data = Buffer.from(result.wav.buffer, result.wav.byteOffset, result.wav.byteLength);
    return { result: [wavOutput(data, 'speech.wav')] };
  },
};
