import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { extractFrameEngine } from '../../../src/engines/local/video/frame.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { builds, fileUrl, inspect, makeVideo, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return extractFrameEngine.execute({ nodeType: 'extract_frame', subModelId: 'extract-frame', input, options: {} }, t.ctx);
};

const clip = fileUrl(makeVideo('fr', { width: 320, height: 240, seconds: 2 }));

for (const build of builds()) {
  for (const at of [0, 1.2, 2]) {
    test(`extract_frame (${build} ffmpeg): a PNG of the frame at ${at} s`, async () => {
      withBuild(build);
      const out = onlyFile(await run({ video_url: clip, timestamp: at }));
      assert.equal(out.contentType, 'image/png');
      assert.equal(out.data.readUInt32BE(0), 0x89504e47);
      assert.equal(out.width, 320);
      assert.equal(out.height, 240);
      const i = await inspect(out, 'png');
      assert.equal(i.width, 320);
    });
  }
}

test('extract_frame: frames differ over time, and a time past the end is an input error', async () => {
  withBuild(builds()[0]!);
  const first = onlyFile(await run({ video_url: clip, timestamp: 0 }));
  const later = onlyFile(await run({ video_url: clip, timestamp: 1.5 }));
  assert.notDeepEqual(first.data, later.data);
  await assert.rejects(run({ video_url: clip, timestamp: 2.5 }), EngineInputError);
});
