import fsSync from 'node:fs';
import path from 'node:path';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { runBinary, runFfmpeg } from '../ffmpeg.js';
import { fetchAudioFile, probeAudio, timeLeft } from './audioIo.js';
import { findBinary } from './binaries.js';

/** Debian's pocketsphinx-en-us: acoustic model, language model and pronunciation dictionary. */
const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const MODEL = { hmm: `${MODEL_DIR}/en-us`, lm: `${MODEL_DIR}/en-us.lm.bin`, dict: `${MODEL_DIR}/cmudict-en-us.dict` };
const MAX_SECONDS = 15 * 60;

export interface RecognizedWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

function modelInstalled(): boolean {
  return Object.values(MODEL).every((p) => fsSync.existsSync(p));
}

/**
 * Parses `pocketsphinx_continuous -time yes` output: one "word start end confidence" line per word.
 * Sentence markers, silences and noise fillers are dropped; "(2)" marks an alternate pronunciation.
 */
export function parseTimedWords(stdout: string): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line.trim());
    if (!m) continue;
    const word = m[1]!.replace(/\(\d+\)$/, '');
    if (/^(<s>|<\/s>|<sil>|\[.*\]|\+\+.*\+\+)$/.test(word)) continue;
    words.push({ word, start: Number(m[2]), end: Number(m[3]), confidence: Math.min(1, Number(m[4])) });
  }
  return words;
}

/** CMU PocketSphinx speech recognition (HMM acoustic model + trigram language model), US English. */
export const transcribeEngine: Engine = {
  id: 'pocketsphinx',
  requirements: ['Debian: pocketsphinx, pocketsphinx-en-us', 'ffmpeg'],

  async availability() {
    if (!findBinary('pocketsphinx_continuous')) return { available: false, reason: 'pocketsphinx is not installed: install the Debian packages pocketsphinx and pocketsphinx-en-us' };
    if (!modelInstalled()) return { available: false, reason: 'the English speech model is missing: install the Debian package pocketsphinx-en-us' };
    return { available: true };
  },

  async execute(req, ctx) {
    const bin = findBinary('pocketsphinx_continuous');
    if (!bin || !modelInstalled()) throw new EngineError('pocketsphinx is not installed on this server');
    const file = await fetchAudioFile(ctx, String(req.input.audio_url), 'audio');
    const probe = await probeAudio(file, 'audio_url', ctx.signal);
    if (probe.durationSeconds > MAX_SECONDS) throw new EngineInputError(`the audio is ${Math.round(probe.durationSeconds)} s long; the limit is ${MAX_SECONDS} s`);
    ctx.progress(0.1, 'converting to 16 kHz mono');
    // The acoustic model was trained on 16 kHz mono 16-bit speech.
    const wav = path.join(ctx.tmpDir, 'speech16k.wav');
    await runFfmpeg(['-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', wav], { signal: ctx.signal, timeoutMs: timeLeft(ctx) });
    ctx.progress(0.2, 'recognizing speech');
    const { stdout } = await runBinary(bin, ['-infile', wav, '-hmm', MODEL.hmm, '-lm', MODEL.lm, '-dict', MODEL.dict, '-time', 'yes', '-logfn', '/dev/null'], {
      signal: ctx.signal, timeoutMs: timeLeft(ctx),
    });
    const words = parseTimedWords(stdout.toString('utf8'));
    ctx.progress(1, 'done');
    return {
      output: { kind: 'text', text: words.map((w) => w.word).join(' ') },
      words: { kind: 'json', value: words },
    };
  },
};
