import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { trimEngine, trimSpan } from '../../../src/engines/local/video/trim.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return trimEngine.execute({ nodeType: 'trim_video', subModelId: 'trim-video', input, options: {} }, t.ctx);
};

const clip = fileUrl(makeVideo('tr', { width: 320, height: 240, seconds: 3 }));

for (const build of builds()) {
  test(`trim_video (${build} ffmpeg): start + end`, async () => {
    withBuild(build);
    await assertMp4(onlyFile(await run({ video_url: clip, start: 0.5, end: 1.7 })), { width: 320, height: 240, seconds: 1.2, tolerance: 0.1, audio: true });
  });

  test(`trim_video (${build} ffmpeg): start + duration, and start alone keeps the rest`, async () => {
    withBuild(build);
    await assertMp4(onlyFile(await run({ video_url: clip, start: 1, duration: 1 })), { seconds: 1, tolerance: 0.1, audio: true });
    await assertMp4(onlyFile(await run({ video_url: clip, start: 2 })), { seconds: 1, tolerance: 0.1, audio: true });
  });
}

test('trim_video: times past the end or backwards are input errors', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_url: clip, start: 5 }), EngineInputError);
  assert.throws(() => trimSpan(3, 1, 0.5, undefined), /after start/);
  assert.throws(() => trimSpan(3, 1, 4, undefined), /past the end/);
  assert.throws(() => trimSpan(3, 2, undefined, 2), /past the end/);
  assert.deepEqual(trimSpan(3, 1, 2.5, 0.2), { start: 1, seconds: 1.5 });
});
