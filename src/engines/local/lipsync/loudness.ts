/**
 * Audio loudness per video frame, turned into a mouth-opening curve. Pure functions over 16-bit mono PCM
 * so they are unit-tested without audio files.
 */
export const SAMPLE_RATE = 16_000;
export const FRAME_SECONDS = 0.04; // 25 fps: one video frame per 40 ms of audio
export const FRAME_SAMPLES = SAMPLE_RATE * FRAME_SECONDS;

/** RMS level in dBFS of each 40 ms window (the last window may be short). Silence is -100. */
export function frameLevels(pcm: Int16Array): number[] {
  const levels: number[] = [];
  for (let start = 0; start < pcm.length; start += FRAME_SAMPLES) {
    const end = Math.min(pcm.length, start + FRAME_SAMPLES);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm[i]! * pcm[i]!;
    const rms = Math.sqrt(sum / Math.max(1, end - start)) / 32768;
    levels.push(rms > 1e-5 ? 20 * Math.log10(rms) : -100);
  }
  return levels;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return -100;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))]!;
}

/**
 * Maps levels to openings 0..1: the quiet floor (10th percentile, at least -60 dBFS) maps to closed and
 * the loud end (95th percentile) to fully open, so both whispered and shouted recordings move the jaw.
 * The mouth opens quickly and closes a little slower, as real jaws do, which also hides 40 ms flicker.
 * `strength` scales the result.
 */
export function mouthOpenings(levels: number[], strength = 1): number[] {
  const sorted = [...levels].sort((a, b) => a - b);
  const floor = Math.max(-60, percentile(sorted, 0.1));
  const peak = percentile(sorted, 0.95);
  const range = peak - floor - 3;
  if (range < 6) return levels.map(() => 0); // no speech-like dynamics: keep the mouth closed
  const out: number[] = [];
  let prev = 0;
  for (const db of levels) {
    const target = Math.max(0, Math.min(1, (db - floor - 3) / range)) ** 0.8;
    const v = target > prev ? prev + (target - prev) * 0.7 : prev + (target - prev) * 0.45;
    prev = v;
    out.push(Math.max(0, Math.min(1, v * strength)));
  }
  return out;
}
