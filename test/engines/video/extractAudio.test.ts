import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { extractAudioEngine } from '../../../src/engines/local/video/extractAudio.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { builds, fileUrl, inspect, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return extractAudioEngine.execute({ nodeType: 'extract_audio', subModelId: 'extract_audio', input, options: {} }, t.ctx);
};

const withSound = fileUrl(makeVideo('ea', { width: 160, height: 120, seconds: 1.5 }));
const silent = fileUrl(makeVideo('ea-silent', { width: 160, height: 120, seconds: 1, audio: false }));

for (const build of builds()) {
  for (const [format, codec, type] of [['wav', 'pcm_s16le', 'audio/wav'], ['mp3', 'mp3', 'audio/mpeg'], ['aac', 'aac', 'audio/aac']] as const) {
    test(`extract_audio (${build} ffmpeg, ${format}): the soundtrack alone, full length`, async () => {
      withBuild(build);
      const outputs = await run({ video_url: withSound, format });
      assert.deepEqual(Object.keys(outputs), ['audio_url'], 'the hosted output key');
      const out = onlyFile(outputs, 'audio_url');
      assert.equal(out.contentType, type);
      const i = await inspect(out, format);
      assert.equal(i.hasVideo, false);
      assert.equal(i.audioCodec, codec);
      // An ADTS header only estimates the length (from the bit rate): the engine measures it by decoding.
      const seconds = format === 'aac' ? out.durationSeconds : i.durationSeconds;
      assert.ok(Math.abs(seconds! - 1.5) < 0.1, `duration ${seconds}`);
      if (format === 'wav') assert.equal(out.data.subarray(0, 4).toString('latin1'), 'RIFF');
      if (format === 'aac') assert.equal(out.data.readUInt16BE(0) & 0xfff6, 0xfff0, 'an ADTS frame header');
    });
  }
}

test('extract_audio: a video without sound is an input error', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_url: silent, format: 'wav' }), /no audio track/);
  await assert.rejects(run({ video_url: silent, format: 'wav' }), EngineInputError);
});
