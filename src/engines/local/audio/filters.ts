/**
 * ffmpeg audio filter snippets that behave the same in the system ffmpeg (5.x) and the static 4.1 build
 * of @ffmpeg-installer, so every audio utility works on either.
 */

/** A number as ffmpeg option text: fixed-point, never exponent notation. */
export function num(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

/** atempo accepts 0.5..2 in ffmpeg 4.1, so larger changes are a chain of steps whose product is `factor`. */
export function atempoChain(factor: number): string[] {
  const steps: string[] = [];
  let f = factor;
  while (f > 2) {
    steps.push('atempo=2');
    f /= 2;
  }
  while (f < 0.5) {
    steps.push('atempo=0.5');
    f /= 0.5;
  }
  if (Math.abs(f - 1) > 1e-9) steps.push(`atempo=${num(f)}`);
  return steps;
}

/** Resampling trick that changes speed and pitch together: reinterpret the rate, then resample back. */
export function rateShift(sampleRate: number, factor: number): string[] {
  return [`asetrate=${Math.round(sampleRate * factor)}`, `aresample=${sampleRate}`];
}

/**
 * Converts one input to a common float format. A mono input going to stereo is copied to both sides at
 * full level with pan: ffmpeg's default upmix treats mono as a centre channel and lowers it by 3 dB,
 * which would make a mono file quieter than it is next to stereo ones.
 */
export function toCommonFormat(inputChannels: number, sampleRate: number, layout: 'mono' | 'stereo'): string {
  const upmix = inputChannels === 1 && layout === 'stereo' ? 'pan=stereo|c0=c0|c1=c0,' : '';
  return `${upmix}aformat=sample_fmts=fltp:sample_rates=${sampleRate}:channel_layouts=${layout}`;
}
