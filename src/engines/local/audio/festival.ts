import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import path from 'node:path';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { runBinary } from '../ffmpeg.js';
import { timeLeft, wavOutput } from './audioIo.js';
import { findBinary } from './binaries.js';
import { num } from './filters.js';

/** Debian's festvox-us-slt-hts: the CMU ARCTIC "slt" speaker as an HTS (HMM-based) voice. */
const SLT_HTS_DIR = '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts';

function voiceInstalled(): boolean {
  try {
    return fsSync.statSync(SLT_HTS_DIR).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The Festival speech synthesis system with the US English SLT HTS voice — statistical-parametric
 * (HMM) synthesis: the most natural voice available offline here, though clearly not neural.
 */
export const festivalEngine: Engine = {
  id: 'festival',
  requirements: ['Debian: festival, festvox-us-slt-hts'],

  async availability() {
    if (!findBinary('text2wave')) return { available: false, reason: 'festival is not installed: install the Debian packages festival and festvox-us-slt-hts' };
    if (!voiceInstalled()) return { available: false, reason: 'the festival voice is missing: install the Debian package festvox-us-slt-hts' };
    return { available: true };
  },

  async execute(req, ctx) {
    const bin = findBinary('text2wave');
    if (!bin) throw new EngineError('festival is not installed on this server');
    const text = String(req.input.text ?? '').trim();
    if (!text) throw new EngineInputError('text is empty: give the words to speak');
    const speed = Number(req.input.speed ?? 1);
    if (!(speed >= 0.5 && speed <= 2)) throw new EngineInputError('speed must be from 0.5 to 2');
    const pitch = Number(req.input.pitch ?? 0);
    if (!(pitch >= -12 && pitch <= 12)) throw new EngineInputError('pitch must be from -12 to 12 semitones');

    const input = path.join(ctx.tmpDir, 'text.txt');
    const out = path.join(ctx.tmpDir, 'speech.wav');
    await fs.writeFile(input, text);
    // hts_engine options: -r is the speaking rate, -fm a pitch shift in half tones. Only numbers we
    // formatted go into the Scheme expression; the text itself is read from a file as plain text.
    const params = `(set! hts_engine_params (append hts_engine_params (list (list "-r" ${num(speed)}) (list "-fm" ${num(pitch)}))))`;
    ctx.progress(0.1, 'synthesizing speech');
    await runBinary(bin, ['-o', out, '-eval', '(voice_cmu_us_slt_arctic_hts)', '-eval', params, input], { signal: ctx.signal, timeoutMs: timeLeft(ctx) });
    ctx.progress(1, 'done');
    return { result: [wavOutput(await fs.readFile(out), 'speech.wav')] };
  },
};
