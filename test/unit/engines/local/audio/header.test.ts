import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { audioHeaderShape } from '../../../../../src/engines/local/audio/header.js';
import { channelCount, checkAudioShape, pcmBytes } from '../../../../../src/engines/local/audio/limits.js';
import { EngineInputError } from '../../../../../src/engines/types.js';
import { ffmpegInfo } from '../../../../../src/engines/local/ffmpeg.js';

/** The audio caps of issue 26 (finding 6): header reading and the checks, on files ffmpeg makes. */
function make(ext: string, seconds: number, rate: number, layout: string): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-hdr-'));
  try {
    const file = path.join(dir, `a.${ext}`);
    execFileSync(ffmpegInfo()!.ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', `anullsrc=r=${rate}:cl=${layout}`, '-t', String(seconds), file]);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('FLAC and WAV headers give length, rate and channels without decoding', () => {
  const flac = audioHeaderShape(make('flac', 3, 192_000, '7.1'))!;
  assert.deepEqual({ ...flac, durationSeconds: Math.round(flac.durationSeconds!) }, { sampleRate: 192_000, channels: 8, durationSeconds: 3 });
  const wav = audioHeaderShape(make('wav', 2, 22_050, 'mono'))!;
  assert.deepEqual(wav, { channels: 1, sampleRate: 22_050, durationSeconds: 2 });
  assert.equal(audioHeaderShape(Buffer.from('ID3 not a header we read')), undefined);
});

test('the caps refuse with INPUT_TOO_LARGE naming the input', () => {
  const refuse = (shape: Parameters<typeof checkAudioShape>[1]) => assert.throws(() => checkAudioShape('audio_url', shape), (e: unknown) => e instanceof EngineInputError && e.code === 'INPUT_TOO_LARGE' && /^audio_url /.test(e.message));
  refuse({ sampleRate: 192_000 });
  refuse({ channels: 12 });
  refuse({ durationSeconds: 3601 });
  checkAudioShape('audio_url', { sampleRate: 96_000, channels: 8, durationSeconds: 1800 });
  assert.equal(channelCount('5.1(side)'), 6);
  assert.equal(channelCount('12 channels'), 12);
  // 10 minutes of 192 kHz 8-channel audio as 16-bit WAV: the 1.84 GB of the report.
  assert.equal(pcmBytes(600, 192_000, 8), 1_843_200_044);
});
