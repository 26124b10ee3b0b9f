import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { burnCaptionsEngine, captionGraph } from '../../../src/engines/local/video/burnCaptions.js';
import { cuesWithin, parseCaptions } from '../../../src/engines/local/video/captions/cues.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, grayFrame, makeVideo, onlyFile, withBuild } from './media.js';

after(closeThreadPools);

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return burnCaptionsEngine.execute({ nodeType: 'burn_captions', subModelId: 'burn-captions', input, options: {} }, t.ctx);
};

// A flat dark frame: white caption pixels stand out.
const clip = fileUrl(makeVideo('cap', { width: 320, height: 240, seconds: 2, color: '0x203060' }));
const srt = `1
00:00:00,000 --> 00:00:00,900
Hello <i>world</i>

2
00:00:01,000 --> 00:00:01,800
Second line of captions that is long enough to wrap
`;

/** Bright pixels in rows [from, to) of a 160×120 grey frame (the background is ~50). */
const W = 160;
const H = 120;
const bright = (g: Buffer, from: number, to: number) => [...g.subarray(from * W, to * W)].filter((p) => p > 150).length;

for (const build of builds()) {
  test(`burn_captions (${build} ffmpeg): SRT cues appear at the bottom only while they are on`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ video_url: clip, captions: srt }));
    await assertMp4(out, { width: 320, height: 240, seconds: 2, tolerance: 0.1, audio: true });
    const during = grayFrame(out, 0.5, W, H);
    assert.ok(bright(during, 80, 120) > 20, 'caption text in the bottom third');
    assert.equal(bright(during, 0, 60), 0, 'nothing in the top half');
    const gap = grayFrame(out, 0.95, W, H);
    assert.equal(bright(gap, 0, 120), 0, 'no caption between cues');
    const second = grayFrame(out, 1.4, W, H);
    assert.ok(bright(second, 60, 120) > bright(during, 60, 120), 'the longer caption wraps onto more lines');
  });

  test(`burn_captions (${build} ffmpeg): plain text at the top in a box, for the whole video`, async () => {
    withBuild(build);
    const out = onlyFile(await run({ video_url: clip, captions: 'Plain caption', position: 'top', style: 'box', text_color: '#ffff00' }));
    await assertMp4(out, { seconds: 2, tolerance: 0.1 });
    for (const at of [0.1, 1.9]) {
      const g = grayFrame(out, at, W, H);
      assert.ok(bright(g, 0, 40) > 20, `caption at the top at ${at} s`);
      assert.equal(bright(g, 60, 120), 0);
    }
  });
}

test('burn_captions: SRT and WebVTT timings, markup stripped, plain paragraphs share the length', () => {
  const cues = parseCaptions(srt, 2);
  assert.deepEqual(cues.map((c) => [c.start, c.end, c.text]), [[0, 0.9, 'Hello world'], [1, 1.8, 'Second line of captions that is long enough to wrap']]);
  const vtt = parseCaptions('WEBVTT\n\n00:01.500 --> 00:03.250\n<v Bob>Hi {\\an8}there\n', 10);
  assert.deepEqual(vtt, [{ start: 1.5, end: 3.25, text: 'Hi there' }]);
  assert.deepEqual(parseCaptions('one\n\ntwo', 4).map((c) => [c.start, c.end]), [[0, 2], [2, 4]]);
  assert.deepEqual(cuesWithin([{ start: 1, end: 9, text: 'a' }, { start: 12, end: 13, text: 'b' }], 5), [{ start: 1, end: 5, text: 'a' }]);
  assert.ok(captionGraph(320, 240, [{ y: 10, start: 0, end: 1 }]).includes("enable='gte(t,0.000)*lt(t,1.000)'"));
});

test('burn_captions: cues all after the end of the video are an input error', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ video_url: clip, captions: '1\n00:00:05,000 --> 00:00:06,000\nlate\n' }), EngineInputError);
});
