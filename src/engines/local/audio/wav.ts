/**
 * RIFF/WAVE reading and writing for 16-bit and 32-bit-float PCM: enough to report an artifact's length
 * without decoding it again, and to turn float samples from a synthesizer into a file every player opens.
 */

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** 1 = integer PCM, 3 = IEEE float. */
  format: number;
  dataOffset: number;
  dataBytes: number;
  frames: number;
  durationSeconds: number;
}

/** Parses the chunk list of a WAV file; returns null when the bytes are not a WAV we understand. */
export function readWavInfo(buf: Buffer): WavInfo | null {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return null;
  let pos = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('ascii', pos, pos + 4);
    let size = buf.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ' && body + 16 <= buf.length) {
      let format = buf.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE keeps the real format code in its sub-format GUID.
      if (format === 0xfffe && size >= 40 && body + 26 <= buf.length) format = buf.readUInt16LE(body + 24);
      fmt = { format, channels: buf.readUInt16LE(body + 2), sampleRate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    } else if (id === 'data' && fmt) {
      // Streamed writers (espeak, ffmpeg to a pipe) may leave a placeholder size: trust the bytes present.
      if (size === 0 || size === 0xffffffff || body + size > buf.length) size = buf.length - body;
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const frames = frameBytes > 0 ? Math.floor(size / frameBytes) : 0;
      return {
        sampleRate: fmt.sampleRate, channels: fmt.channels, bitsPerSample: fmt.bits, format: fmt.format,
        dataOffset: body, dataBytes: size, frames, durationSeconds: fmt.sampleRate ? frames / fmt.sampleRate : 0,
      };
    }
    pos = body + size + (size % 2);
  }
  return null;
}

/** Decodes a 16-bit or float WAV into one Float32Array per channel. */
export function decodeWav(buf: Buffer): { sampleRate: number; channels: Float32Array[] } {
  const info = readWavInfo(buf);
  if (!info) throw new Error('not a WAV file');
  const out = Array.from({ length: info.channels }, () => new Float32Array(info.frames));
  const step = info.bitsPerSample / 8;
  for (let i = 0; i < info.frames; i++) {
    for (let c = 0; c < info.channels; c++) {
      const at = info.dataOffset + (i * info.channels + c) * step;
      let v: number;
      if (info.format === 3 && step === 4) v = buf.readFloatLE(at);
      else if (step === 2) v = buf.readInt16LE(at) / 32768;
      else if (step === 1) v = (buf[at]! - 128) / 128;
      else if (step === 4) v = buf.readInt32LE(at) / 2147483648;
      else throw new Error(`unsupported WAV sample size ${info.bitsPerSample}`);
      out[c]![i] = v;
    }
  }
  return { sampleRate: info.sampleRate, channels: out };
}

/** The 44-byte header of a PCM WAV of 16-bit little-endian samples: `dataBytes` of samples follow it. */
export function wavHeader16(dataBytes: number, sampleRate: number, channels: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Encodes channels of float samples (-1..1; louder values are clipped) as 16-bit PCM WAV. */
export function encodeWav16(channels: Float32Array[], sampleRate: number): Buffer {
  const nc = channels.length;
  const frames = channels[0]?.length ?? 0;
  const dataBytes = frames * nc * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  wavHeader16(dataBytes, sampleRate, nc).copy(buf, 0);
  let at = 44;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < nc; c++) {
      const v = Math.max(-1, Math.min(1, channels[c]![i]!));
      buf.writeInt16LE(Math.round(v < 0 ? v * 32768 : v * 32767), at);
      at += 2;
    }
  }
  return buf;
}
