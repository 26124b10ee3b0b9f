import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { gifEngine } from '../../../src/engines/local/video/gif.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { builds, fileUrl, inspect, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return gifEngine.execute({ nodeType: 'video_to_gif', subModelId: 'video-to-gif', input, options: {} }, t.ctx);
};

const clip = fileUrl(makeVideo('gif', { width: 320, height: 240, seconds: 2 }));

for (const build of builds()) {
  test(`video_to_gif (${build} ffmpeg): looping GIF at the asked width and rate`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ video_url: clip, fps: 8, width: 160, start: 0.5, duration: 1 }));
    assert.equal(out.contentType, 'image/gif');
    assert.equal(out.data.subarray(0, 6).toString('latin1'), 'GIF89a');
    // NETSCAPE2.0 application block: loops forever.
    assert.ok(out.data.includes('NETSCAPE2.0'));
    const i = await inspect(out, 'gif');
    assert.equal(i.width, 160);
    assert.equal(i.height, 120);
    assert.ok(Math.abs(i.durationSeconds! - 1) <= 0.15, `duration ${i.durationSeconds}`);
  });

  test(`video_to_gif (${build} ffmpeg): never upscales`, async () => {
    withBuild(build);
    const i = await inspect(onlyFile(await run({ video_url: clip, fps: 5, width: 640, duration: 0.4 })), 'gif');
    assert.equal(i.width, 320);
  });
}

test('video_to_gif: a start past the end is an input error', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_url: clip, start: 9 }), EngineInputError);
});
