import type { AudioShape } from './limits.js';

/**
 * Length, sample rate and channels of a WAV or FLAC file, read from its first bytes without decoding (pure).
 * The service checks an audio input given inline (a data: URL) against the caps at create, so an input
 * over them is a 400 there rather than a failed run. Other formats, and files whose header does not say,
 * give undefined: the engine checks them when it reads them.
 */
export function audioHeaderShape(b: Buffer): AudioShape | undefined {
  if (b.length >= 42 && b.subarray(0, 4).toString('latin1') === 'fLaC') return flac(b);
  if (b.length >= 44 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE') return wav(b);
  return undefined;
}

/** FLAC: the STREAMINFO block comes first (a 4-byte block header after "fLaC", then 34 bytes). */
function flac(b: Buffer): AudioShape | undefined {
  if ((b[4]! & 0x7f) !== 0) return undefined; // first block must be STREAMINFO
  const si = 8;
  // Bytes 10..17 of STREAMINFO: 20 bits sample rate, 3 bits channels-1, 5 bits bits-per-sample-1, 36 bits total samples.
  const x = b.readUInt32BE(si + 10);
  const sampleRate = x >>> 12;
  const channels = ((x >>> 9) & 0x7) + 1;
  const totalSamples = (b[si + 13]! & 0x0f) * 2 ** 32 + b.readUInt32BE(si + 14);
  return { sampleRate, channels, ...(totalSamples > 0 && sampleRate > 0 ? { durationSeconds: totalSamples / sampleRate } : {}) };
}

/** WAV: walk the RIFF chunks for `fmt ` (channels, rate, block size) and `data` (its length). */
function wav(b: Buffer): AudioShape | undefined {
  let channels: number | undefined;
  let sampleRate: number | undefined;
  let blockAlign: number | undefined;
  for (let at = 12; at + 8 <= b.length;) {
    const id = b.subarray(at, at + 4).toString('latin1');
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 20 <= b.length) {
      channels = b.readUInt16LE(at + 10);
      sampleRate = b.readUInt32LE(at + 12);
      blockAlign = b.readUInt16LE(at + 20);
    } else if (id === 'data') {
      // A streamed WAV may give 0 or 0xFFFFFFFF as its length: then only the format is known.
      const known = size > 0 && size < 0xffffffff && blockAlign && sampleRate;
      return { channels, sampleRate, ...(known ? { durationSeconds: size / blockAlign! / sampleRate! } : {}) };
    }
    at += 8 + size + (size % 2);
  }
  return channels === undefined ? undefined : { channels, sampleRate };
}
