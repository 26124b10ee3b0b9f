import assert from 'node:assert/strict';
import type { EngineOutputs, FileOutput, OutputValue } from '../../../src/engines/types.js';
import { decodeWav, encodeWav16, readWavInfo, type WavInfo } from '../../../src/engines/local/audio/wav.js';

/** The file outputs under `result`, asserting there is at least one. */
export function resultFiles(out: EngineOutputs): FileOutput[] {
  const r = out.result;
  assert.ok(Array.isArray(r) && r.length > 0, 'result is a non-empty list');
  for (const v of r as OutputValue[]) assert.equal(v.kind, 'file');
  return r as FileOutput[];
}

/** Checks a WAV artifact: RIFF/WAVE header, content type, rate, length and that it is not silent. */
export function assertWav(file: FileOutput, expect: { sampleRate?: number; channels?: number; minSeconds?: number; maxSeconds?: number; minRms?: number } = {}): WavInfo {
  assert.equal(file.contentType, 'audio/wav');
  assert.equal(file.data.toString('ascii', 0, 4), 'RIFF');
  assert.equal(file.data.toString('ascii', 8, 12), 'WAVE');
  const info = readWavInfo(file.data);
  assert.ok(info, 'has fmt and data chunks');
  if (expect.sampleRate) assert.equal(info.sampleRate, expect.sampleRate);
  if (expect.channels) assert.equal(info.channels, expect.channels);
  if (expect.minSeconds !== undefined) assert.ok(info.durationSeconds >= expect.minSeconds, `duration ${info.durationSeconds} >= ${expect.minSeconds}`);
  if (expect.maxSeconds !== undefined) assert.ok(info.durationSeconds <= expect.maxSeconds, `duration ${info.durationSeconds} <= ${expect.maxSeconds}`);
  assert.ok(file.durationSeconds !== undefined && Math.abs(file.durationSeconds - info.durationSeconds) < 0.01, 'durationSeconds matches the header');
  const level = rms(file);
  assert.ok(level > (expect.minRms ?? 0.005), `not silent (rms ${level.toFixed(4)})`);
  return info;
}

export function rms(file: FileOutput, from = 0, to = Infinity): number {
  const { sampleRate, channels } = decodeWav(file.data);
  const a = Math.floor(from * sampleRate);
  let sum = 0;
  let n = 0;
  for (const ch of channels) {
    const b = Math.min(ch.length, Math.floor(to * sampleRate));
    for (let i = a; i < b; i++) {
      sum += ch[i]! * ch[i]!;
      n++;
    }
  }
  return n ? Math.sqrt(sum / n) : 0;
}

/** Frequency (Hz) of a tone estimated from its zero crossings: good enough for a pure sine. */
export function zeroCrossingHz(file: FileOutput, from = 0, to = Infinity): number {
  const { sampleRate, channels } = decodeWav(file.data);
  const ch = channels[0]!;
  const a = Math.floor(from * sampleRate);
  const b = Math.min(ch.length, Math.floor(to * sampleRate));
  let crossings = 0;
  for (let i = a + 1; i < b; i++) if ((ch[i - 1]! < 0) !== (ch[i]! < 0)) crossings++;
  return crossings / 2 / ((b - a) / sampleRate);
}

/** A sine tone as a 16-bit WAV: test input that needs no fixture file. */
export function sineWav(hz: number, seconds: number, opts: { sampleRate?: number; channels?: number; amplitude?: number } = {}): Buffer {
  const rate = opts.sampleRate ?? 44100;
  const frames = Math.round(seconds * rate);
  const ch = new Float32Array(frames);
  for (let i = 0; i < frames; i++) ch[i] = (opts.amplitude ?? 0.5) * Math.sin((2 * Math.PI * hz * i) / rate);
  return encodeWav16(Array.from({ length: opts.channels ?? 1 }, () => ch), rate);
}
