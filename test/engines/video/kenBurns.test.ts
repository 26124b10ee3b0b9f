import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { kenBurnsEngine, motionExpressions } from '../../../src/engines/local/video/kenBurns.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, makeAudio, makeImage, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return { t, out: kenBurnsEngine.execute({ nodeType: 'ken_burns_video', subModelId: 'ken-burns-video', input, options: {} }, t.ctx) };
};

const image = makeImage('kb', 400, 300);

for (const build of builds()) {
  test(`ken_burns_video (${build} ffmpeg): zoom into an image for the asked length and size`, async () => {
    withBuild(build);
    const { t, out } = run({ image_url: fileUrl(image), duration: 1.5, width: 320, height: 240, fps: 24, motion: 'zoom_in', zoom: 1.3 });
    const file = onlyFile(await out);
    await assertMp4(file, { width: 320, height: 240, seconds: 1.5, audio: false });
    assert.ok(t.progress.length >= 2 && t.progress.at(-1)![0] === 1, 'progress ends at 1');
  });

  test(`ken_burns_video (${build} ffmpeg): pans with a soundtrack cut to the video's length`, async () => {
    withBuild(build);
    const { out } = run({ image_url: fileUrl(image), audio_url: fileUrl(makeAudio('kb-audio', 3)), duration: 1, width: 242, height: 137, fps: 24, motion: 'pan_left', zoom: 1.2 });
    // Odd sizes are rounded down to even ones (yuv420p).
    await assertMp4(onlyFile(await out), { width: 242, height: 136, seconds: 1, audio: true });
  });
}

test('ken_burns_video: a file that is not an image is an input error', async () => {
  withBuild(builds()[0]!);
  const { out } = run({ image_url: `data:image/png;base64,${Buffer.from('not a picture').toString('base64')}`, duration: 1, width: 320, height: 240 });
  await assert.rejects(out, EngineInputError);
});

test('ken_burns_video: every motion gives zoompan expressions without commas (they would split the filter)', () => {
  for (const m of ['zoom_in', 'zoom_out', 'pan_left', 'pan_right', 'pan_up', 'pan_down'] as const) {
    const e = motionExpressions(m, 1.3, 48);
    for (const v of Object.values(e)) assert.ok(!v.includes(','), `${m}: ${v}`);
  }
});
