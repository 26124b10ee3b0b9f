import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { runBinary } from '../ffmpeg.js';
import { timeLeft, wavOutput } from './audioIo.js';
import { findBinary } from './binaries.js';
import { num } from './filters.js';

/** Voices compiled into Debian's flite: CMU US English (slt female; awb Scottish male; rms, kal male). */
export const FLITE_VOICES = ['slt', 'awb', 'rms', 'kal'] as const;

/** CMU Flite, a small statistical-parametric/diphone synthesizer; English only, fast and clear. */
export const fliteEngine: Engine = {
  id: 'flite',
  requirements: ['Debian: flite'],

  async availability() {
    return findBinary('flite') ? { available: true } : { available: false, reason: 'the flite binary is not installed: install the Debian package flite' };
  },

  async execute(req, ctx) {
    const bin = findBinary('flite');
    if (!bin) throw new EngineError('flite is not installed on this server');
    const text = String(req.input.text ?? '').trim();
    if (!text) throw new EngineInputError('text is empty: give the words to speak');
    const voice = String(req.input.voice ?? 'slt');
    if (!(FLITE_VOICES as readonly string[]).includes(voice)) throw new EngineInputError(`unknown flite voice "${voice}"; choose one of ${FLITE_VOICES.join(', ')}`);
    const speed = Number(req.input.speed ?? 1);
    if (!(speed >= 0.5 && speed <= 2)) throw new EngineInputError('speed must be from 0.5 to 2');

    const input = path.join(ctx.tmpDir, 'text.txt');
    const out = path.join(ctx.tmpDir, 'speech.wav');
    await fs.writeFile(input, text);
    ctx.progress(0.1, 'synthesizing speech');
    await runBinary(bin, ['-voice', voice, '--setf', `duration_stretch=${num(1 / speed)}`, '-f', input, '-o', out], { signal: ctx.signal, timeoutMs: timeLeft(ctx) });
    ctx.progress(1, 'done');
    return { result: [wavOutput(await fs.readFile(out), 'speech.wav')] };
  },
};
