import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { ffmpegInfo } from '../../../src/engines/local/ffmpeg.js';
import { staticFfmpegInfo } from '../../../src/engines/local/video/ffmpegBuild.js';
import { mergeAudioVideoEngine } from '../../../src/engines/local/video/mergeAudioVideo.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, fixtureDir, makeAudio, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return mergeAudioVideoEngine.execute({ nodeType: 'merge_audio_video', subModelId: 'merge_audio_video', input, options: {} }, t.ctx);
};

/** Peak level of the output's sound in dB (ffmpeg's volumedetect, which reports on stderr). */
function maxVolume(data: Buffer): number {
  const file = path.join(fixtureDir, `mav-${Date.now()}-${Math.random().toString(36).slice(2)}.mp4`);
  fs.writeFileSync(file, data);
  const bin = ffmpegInfo()?.ffmpeg ?? staticFfmpegInfo()!.ffmpeg;
  const err = spawnSync(bin, ['-hide_banner', '-i', file, '-map', '0:a', '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' }).stderr;
  const m = /max_volume: (-?[\d.]+) dB/.exec(err);
  assert.ok(m, err);
  return Number(m[1]);
}

// A silent 2 s video and a 1 s tone: the tone is padded with silence to the video's length.
const silentVideo = fileUrl(makeVideo('mav-v', { width: 322, height: 240, seconds: 2, audio: false }));
const tone = fileUrl(makeAudio('mav-a', 1));

for (const build of builds()) {
  test(`merge_audio_video (${build} ffmpeg): the audio under the video, the video's length, keyed video_url`, async () => {
    withBuild(build);
    const outputs = await run({ video_url: silentVideo, audio_url: tone, audio_volume: 1 });
    assert.deepEqual(Object.keys(outputs), ['video_url']);
    await assertMp4(onlyFile(outputs, 'video_url'), { width: 322, height: 240, seconds: 2, tolerance: 0.15, audio: true });
  });

  test(`merge_audio_video (${build} ffmpeg): audio_volume scales the sound`, async () => {
    withBuild(build);
    const level = async (audio_volume: number) => maxVolume(onlyFile(await run({ video_url: silentVideo, audio_url: tone, audio_volume }), 'video_url').data);
    const [full, half, none] = [await level(1), await level(0.5), await level(0)];
    assert.ok(Math.abs(full - half - 6) < 1.5, `half the volume is about 6 dB quieter: ${full} vs ${half}`);
    assert.ok(none < -60, `volume 0 is silence: ${none}`);
  });
}

test('merge_audio_video: a video URL that is not a video is named', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_url: tone, audio_url: tone }), /video_url/);
});
