import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { blendGraph, mergeEngine, transitionSeconds, xfadeGraph } from '../../../src/engines/local/video/merge.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, frameStats, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return mergeEngine.execute({ nodeType: 'merge_videos', subModelId: 'merge_videos', input, options: {} }, t.ctx);
};

// Different sizes, frame rates, and one clip without sound.
const a = fileUrl(makeVideo('m-a', { width: 320, height: 240, seconds: 1, fps: 25 }));
const b = fileUrl(makeVideo('m-b', { width: 240, height: 320, seconds: 1.2, fps: 30, audio: false }));
const c = fileUrl(makeVideo('m-c', { width: 426, height: 240, seconds: 0.8, fps: 24, freq: 880 }));
// A white clip and a black one: a crossfade passes through grey, a dissolve through a white-and-black speckle.
const white = fileUrl(makeVideo('m-white', { width: 320, height: 240, seconds: 1.5, fps: 25, color: 'white' }));
const black = fileUrl(makeVideo('m-black', { width: 320, height: 240, seconds: 1.5, fps: 25, color: 'black', audio: false }));

for (const build of builds()) {
  test(`merge_videos (${build} ffmpeg): mixed sizes, rates and a silent clip join into one clip, keyed video_url`, async () => {
    withBuild(build);
    const out = await run({ video_urls: [a, b, c], transition: 'none' });
    assert.deepEqual(Object.keys(out), ['video_url'], 'the hosted output key');
    // The first clip's size is the default; the lengths add up.
    await assertMp4(onlyFile(out, 'video_url'), { width: 320, height: 240, seconds: 3, tolerance: 0.15, audio: true });
  });

  for (const transition of ['fade', 'dissolve'] as const) {
    test(`merge_videos (${build} ffmpeg): ${transition} between a white and a black clip`, async () => {
      withBuild(build);
      const t = transitionSeconds([{ seconds: 1.5, hasAudio: true }, { seconds: 1.5, hasAudio: false }]);
      assert.equal(t, 0.5);
      const out = onlyFile(await run({ video_urls: [white, black], transition }), 'video_url');
      // The clips overlap for t seconds: 1.5 + 1.5 − 0.5.
      await assertMp4(out, { width: 320, height: 240, seconds: 2.5, tolerance: 0.15, audio: true });
      const before = frameStats(out, 0.4);
      const middle = frameStats(out, 1.25);
      const afterwards = frameStats(out, 2.1);
      assert.ok(before.mean > 230, `white before the transition: ${JSON.stringify(before)}`);
      assert.ok(afterwards.mean < 25, `black after it: ${JSON.stringify(afterwards)}`);
      assert.ok(middle.mean > 50 && middle.mean < 205, `half way: between white and black: ${JSON.stringify(middle)}`);
      if (transition === 'fade') assert.ok(middle.std < 20, `a crossfade is an even grey: ${JSON.stringify(middle)}`);
      else assert.ok(middle.std > 50, `a dissolve is a speckle of white and black pixels: ${JSON.stringify(middle)}`);
    });
  }
}

test('merge_videos: the transition graphs overlap every pair of clips by the same length', () => {
  const clips = [{ seconds: 2, hasAudio: true }, { seconds: 0.9, hasAudio: false }, { seconds: 3, hasAudio: true }];
  assert.ok(Math.abs(transitionSeconds(clips) - 0.3) < 1e-9, 'a third of the shortest clip');
  const x = xfadeGraph(clips, 320, 240, 25, 'dissolve');
  assert.match(x, /xfade=transition=dissolve:duration=0\.300000:offset=1\.700000/);
  assert.match(x, /xfade=transition=dissolve:duration=0\.300000:offset=2\.300000/);
  assert.equal((x.match(/acrossfade/g) ?? []).length, 2);
  const blend = blendGraph(clips, 320, 240, 25, 'fade');
  assert.equal((blend.match(/blend=/g) ?? []).length, 2);
  assert.match(blend, /concat=n=5:v=1:a=0/);
});

test('merge_videos: a broken clip is named in the error, an unknown transition refused', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_urls: [a, `data:video/mp4;base64,${Buffer.from('nope').toString('base64')}`] }), (e: Error) => e instanceof EngineInputError && /video_urls\[1\]/.test(e.message));
  await assert.rejects(run({ video_urls: [a, b], transition: 'wipe' }), /transition must be one of none, fade, dissolve/);
});
