import { createRequire } from 'node:module';
import type * as Jsfxr from 'jsfxr';
import { seededRng } from '../random.js';

/**
 * Runs in a worker thread (threads.ts). jsfxr draws every random choice — the preset's parameters and
 * the noise table — from Math.random, so to make a seed reproducible the thread swaps in a seeded
 * generator for the (synchronous) duration of one render. Nothing else runs on this thread meanwhile.
 */
const { Params, SoundEffect } = createRequire(import.meta.url)('jsfxr') as typeof Jsfxr;

const SAMPLE_RATE = 44100;

export interface SfxrJob {
  /** jsfxr preset method: pickupCoin, laserShoot, … */
  preset: string;
  seed: number;
  /** Peak level 0..1 the result is scaled to. */
  volume: number;
}

function renderOnce(preset: string, seed: number): Float32Array {
  const original = Math.random;
  Math.random = seededRng(seed, 'golden-mixed');
  try {
    const params = new Params();
    params.sample_rate = SAMPLE_RATE;
    params.sample_size = 16;
    params.sound_vol = 0.25;
    const fill = params[preset];
    if (typeof fill !== 'function') throw new Error(`jsfxr has no preset ${preset}`);
    fill.call(params);
    return Float32Array.from(new SoundEffect(params).getRawBuffer().normalized);
  } finally {
    Math.random = original;
  }
}

function peakOf(s: Float32Array): number {
  let p = 0;
  for (const v of s) p = Math.max(p, Math.abs(v));
  return p;
}

/** Renders one effect and scales it to the wanted peak: mono samples. */
export function render(job: SfxrJob): { sampleRate: number; samples: Float32Array } {
  // Some random parameter sets (mostly of the "random" preset) are silent or inaudibly short; derive
  // the next seed deterministically so a given seed still always gives the same sound.
  let samples = renderOnce(job.preset, job.seed);
  for (let attempt = 1; attempt < 16 && (peakOf(samples) < 1e-3 || samples.length < SAMPLE_RATE * 0.05); attempt++) {
    samples = renderOnce(job.preset, (job.seed + attempt * 0x9e3779b1) >>> 0);
  }
  const peak = peakOf(samples);
  if (peak > 0) {
    const gain = job.volume / peak;
    for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! * gain;
  }
  return { sampleRate: SAMPLE_RATE, samples };
}
