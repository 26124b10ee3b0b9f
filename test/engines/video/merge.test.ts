import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { mergeEngine } from '../../../src/engines/local/video/merge.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return mergeEngine.execute({ nodeType: 'merge_videos', subModelId: 'merge-videos', input, options: {} }, t.ctx);
};

// Different sizes, frame rates, and one clip without sound.
const a = fileUrl(makeVideo('m-a', { width: 320, height: 240, seconds: 1, fps: 25 }));
const b = fileUrl(makeVideo('m-b', { width: 240, height: 320, seconds: 1.2, fps: 30, audio: false }));
const c = fileUrl(makeVideo('m-c', { width: 426, height: 240, seconds: 0.8, fps: 24, freq: 880 }));

for (const build of builds()) {
  test(`merge_videos (${build} ffmpeg): mixed sizes, rates and a silent clip join into one clip`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ video_urls: [a, b, c], fps: 30 }));
    // The first clip's size is the default; the lengths add up.
    await assertMp4(out, { width: 320, height: 240, seconds: 3, tolerance: 0.15, audio: true });
  });

  test(`merge_videos (${build} ffmpeg): an asked size wins`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ video_urls: [b, a], width: 256, height: 144, fps: 24 }));
    await assertMp4(out, { width: 256, height: 144, seconds: 2.2, tolerance: 0.15, audio: true });
  });
}

test('merge_videos: a broken clip is named in the error', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_urls: [a, `data:video/mp4;base64,${Buffer.from('nope').toString('base64')}`] }), (e: Error) => e instanceof EngineInputError && /video_urls\[1\]/.test(e.message));
});
