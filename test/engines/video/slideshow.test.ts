import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { planSlides, slideshowEngine, slideshowGraph } from '../../../src/engines/local/video/slideshow.js';
import { EngineInputError, type FileOutput } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, grayFrame, makeAudio, makeImage, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return slideshowEngine.execute({ nodeType: 'slideshow_video', subModelId: 'slideshow-video', input, options: {} }, t.ctx);
};

// Three slides of different shapes and colours.
const images = [makeImage('s1', 400, 300, 0), makeImage('s2', 300, 400, 120), makeImage('s3', 640, 360, 240)].map(fileUrl);

/** Mean luma of the frame at `seconds`: tells a crossfade (a mix of two slides) from a fade through black. */
const lumaAt = (out: FileOutput, seconds: number) => [...grayFrame(out, seconds, 8, 8)].reduce((a, b) => a + b, 0) / 64;

for (const build of builds()) {
  for (const transition of ['crossfade', 'fade_black', 'cut']) {
    test(`slideshow_video (${build} ffmpeg, ${transition}): exact total length at the asked size`, async () => {
      withBuild(build);
      const out = onlyFile(await run({ image_urls: images, duration: 3, width: 320, height: 240, fps: 20, transition, transition_seconds: 0.5, fit: 'contain' }));
      await assertMp4(out, { width: 320, height: 240, seconds: 3, tolerance: 0.06, audio: false });
      if (transition !== 'cut') {
        // Halfway through the first transition: a crossfade shows both slides, a fade shows near black.
        const plan = planSlides(3, 3, 20, transition as 'crossfade', 0.5);
        const mid = transition === 'crossfade' ? (plan.frames[0]! - plan.transitionFrames / 2) / 20 : plan.frames[0]! / 20 - 0.02;
        const y = lumaAt(out, mid);
        if (transition === 'crossfade') assert.ok(y > 40, `crossfade frame should not be black (luma ${y})`);
        else assert.ok(y < 40, `fade_black frame should be dark (luma ${y})`);
      }
    });
  }

  test(`slideshow_video (${build} ffmpeg): one image with a soundtrack`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ image_urls: [images[0]], audio_url: fileUrl(makeAudio('ss-audio', 1)), duration: 2, width: 320, height: 180, fps: 15 }));
    await assertMp4(out, { width: 320, height: 180, seconds: 2, audio: true });
  });
}

test('slideshow_video: too many images for the length is an input error', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ image_urls: [...images, ...images], duration: 2 }), EngineInputError);
});

test('slideshow_video: slide frames add up to the exact total, crossfades overlap', () => {
  const p = planSlides(3, 10, 30, 'crossfade', 1);
  assert.equal(p.transitionFrames, 30);
  assert.equal(p.frames.reduce((a, b) => a + b, 0) - 2 * p.transitionFrames, 300);
  const cut = planSlides(7, 10, 30, 'cut', 1);
  assert.equal(cut.frames.reduce((a, b) => a + b, 0), 300);
  // Only the build that has xfade is given it.
  const g = slideshowGraph(p, { w: 320, h: 240, fps: 30, transition: 'crossfade', xfade: false });
  assert.ok(!g.includes('xfade') && g.includes('overlay'));
});
