import { createRequire } from 'node:module';
import { EngineError, EngineInputError, type Engine, type OutputValue } from '../../types.js';
import { runInThread } from '../threads.js';
import { wavOutput } from './audioIo.js';
import { randomSeed } from '../random.js';
import type { render } from './sfxrThread.js';
import { encodeWav16 } from './wav.js';
import { moduleUrl } from '../moduleUrl.js';

const THREAD_MODULE = moduleUrl('./sfxrThread.ts', import.meta.url);

/** Catalog preset name (kebab-case, as in subModelIds) → jsfxr preset method. */
export const SFXR_PRESETS: Record<string, string> = {
  'pickup-coin': 'pickupCoin',
  'laser-shoot': 'laserShoot',
  explosion: 'explosion',
  'power-up': 'powerUp',
  'hit-hurt': 'hitHurt',
  jump: 'jump',
  'blip-select': 'blipSelect',
  synth: 'synth',
  tone: 'tone',
  click: 'click',
  random: 'random',
};

/** Procedural 8-bit game sound effects (the sfxr algorithm, via jsfxr); seedable. */
export const sfxrEngine: Engine = {
  id: 'sfxr',
  requirements: ['npm: jsfxr'],

  async availability() {
    try {
      createRequire(import.meta.url).resolve('jsfxr');
      return { available: true };
    } catch {
      return { available: false, reason: 'the npm package jsfxr is not installed: run npm ci' };
    }
  },

  async execute(req, ctx) {
    const presetName = String(req.options.preset ?? '');
    const preset = SFXR_PRESETS[presetName];
    if (!preset) throw new EngineError(`catalog binding names an unknown sfxr preset "${presetName}"`);
    const count = Math.max(1, Math.min(8, Math.round(Number(req.input.n ?? 1))));
    const volume = Number(req.input.volume ?? 0.8);
    if (!(volume > 0 && volume <= 1)) throw new EngineInputError('volume must be above 0 and at most 1');
    const seed = req.input.seed === undefined ? randomSeed() : Number(req.input.seed);

    const files: OutputValue[] = [];
    for (let i = 0; i < count; i++) {
      ctx.progress(i / count, `rendering ${presetName} ${i + 1}/${count}`);
      // Variations use consecutive seeds, so "seed 7, n 3" equals seeds 7, 8 and 9 run one by one.
      const { sampleRate, samples } = await runInThread<ReturnType<typeof render>>('sfxr', THREAD_MODULE, 'render', [{ preset, seed: seed + i, volume }], { signal: ctx.signal });
      files.push(wavOutput(encodeWav16([samples], sampleRate), `${presetName}-${seed + i}.wav`));
    }
    ctx.progress(1, 'done');
    return { result: files, seed: { kind: 'number', value: seed } };
  },
};
