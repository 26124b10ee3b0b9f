import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ffmpegInfo } from '../../../src/engines/local/ffmpeg.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { mouthAnimationEngine } from '../../../src/engines/local/lipsync/mouthAnimation.js';
import { frameLevels, mouthOpenings } from '../../../src/engines/local/lipsync/loudness.js';
import { EngineInputError, type FileOutput } from '../../../src/engines/types.js';
import { dataUrl } from '../../helpers/engineContext.js';
import { NO_PORTRAIT, png, portraitUrl, run, shapesPng } from '../image/fixtures.js';

after(() => closeThreadPools());

/**
 * A 16-bit mono WAV: `segments` of [seconds, loud?]; loud parts are a 180 Hz buzz with harmonics (voice-like
 * enough for a loudness meter), quiet parts faint noise.
 */
function wav(segments: Array<[number, boolean]>, rate = 22_050): Buffer {
  const samples: number[] = [];
  let seed = 1;
  for (const [seconds, loud] of segments) {
    for (let i = 0; i < seconds * rate; i++) {
      const t = samples.length / rate;
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = ((seed / 0x7fffffff) * 2 - 1) * 60;
      const voice = loud ? 9000 * (Math.sin(2 * Math.PI * 180 * t) + 0.5 * Math.sin(2 * Math.PI * 360 * t) + 0.25 * Math.sin(2 * Math.PI * 540 * t)) / 1.75 : 0;
      samples.push(Math.round(voice + noise));
    }
  }
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(Math.max(-32768, Math.min(32767, s)), i * 2));
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + data.length, 4); h.write('WAVE', 8);
  h.write('fmt ', 12); h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24); h.writeUInt32LE(rate * 2, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34);
  h.write('data', 36); h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/** Raw RGB of the frame at `t` seconds of an MP4, decoded by ffmpeg. */
function frameAt(file: string, t: number, w: number, h: number): Buffer {
  const out = execFileSync(ffmpegInfo()!.ffmpeg, ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
  assert.equal(out.length, w * h * 3);
  return out;
}

describe('mouth_animation (amplitude-driven, not neural lip-sync)', () => {
  it('turns loudness into jaw openings: loud opens, silence closes', () => {
    const pcm = new Int16Array(16_000);
    for (let i = 8_000; i < 16_000; i++) pcm[i] = Math.round(8000 * Math.sin(i / 5));
    for (let i = 0; i < 8_000; i++) pcm[i] = (i % 7) - 3;
    const levels = frameLevels(pcm);
    assert.equal(levels.length, 25);
    const open = mouthOpenings(levels);
    assert.ok(open[5]! < 0.05, `silent frame ${open[5]}`);
    assert.ok(open[20]! > 0.8, `loud frame ${open[20]}`);
    assert.deepEqual(mouthOpenings(levels.map(() => -30)), levels.map(() => 0), 'a steady tone has no dynamics');
  });

  it('animates the portrait into an H.264/AAC MP4 of the audio length', { skip: NO_PORTRAIT || (!ffmpegInfo() && 'ffmpeg is absent') }, async (t) => {
    const audio = wav([[0.6, false], [0.5, true], [0.4, false], [0.5, true]]);
    const started = Date.now();
    const { out } = await run(mouthAnimationEngine, { image_url: portraitUrl(), audio_url: dataUrl(audio, 'audio/wav'), resolution: 600 });
    t.diagnostic(`mouth_animation, 2 s clip at 512×600: ${Date.now() - started} ms`);
    const f = (out.result as FileOutput[])[0]!;
    assert.equal(f.contentType, 'video/mp4');
    assert.deepEqual([f.width, f.height], [512, 600]);
    assert.ok(Math.abs(f.durationSeconds! - 2.0) < 0.15, `duration ${f.durationSeconds}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mouth-test-'));
    try {
      const file = path.join(dir, 'out.mp4');
      fs.writeFileSync(file, f.data);
      const info = ffmpegInfo()!;
      if (info.ffprobe) {
        const probe = JSON.parse(execFileSync(info.ffprobe, ['-v', 'error', '-show_streams', '-of', 'json', file]).toString()) as { streams: Array<{ codec_name: string; codec_type: string }> };
        assert.deepEqual(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort(), ['audio:aac', 'video:h264']);
      }
      // The mouth of the portrait is around (268, 275); compare a quiet frame with a loud one there.
      const quiet = frameAt(file, 0.3, 512, 600);
      const loud = frameAt(file, 0.9, 512, 600);
      let mouthDiff = 0;
      let cornerDiff = 0;
      for (let y = 0; y < 40; y++) {
        for (let x = 0; x < 60; x++) {
          for (let c = 0; c < 3; c++) {
            mouthDiff += Math.abs(quiet[((265 + y) * 512 + 238 + x) * 3 + c]! - loud[((265 + y) * 512 + 238 + x) * 3 + c]!);
            cornerDiff += Math.abs(quiet[((10 + y) * 512 + 10 + x) * 3 + c]! - loud[((10 + y) * 512 + 10 + x) * 3 + c]!);
          }
        }
      }
      const px = 40 * 60 * 3;
      t.diagnostic(`mean change in the mouth box ${(mouthDiff / px).toFixed(1)}, in a corner ${(cornerDiff / px).toFixed(1)}`);
      assert.ok(mouthDiff / px > 8, 'the mouth moves with the sound');
      assert.ok(cornerDiff / px < 3, 'the rest of the picture stays still');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails clearly when the picture has no face', { skip: !ffmpegInfo() && 'ffmpeg is absent' }, async () => {
    const audio = wav([[0.3, true]]);
    await assert.rejects(run(mouthAnimationEngine, { image_url: png(shapesPng()), audio_url: dataUrl(audio, 'audio/wav') }), (e: Error) => e instanceof EngineInputError && /no face/.test(e.message));
  });
});
