import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { waveformEngine } from '../../../src/engines/local/video/waveform.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertMp4, builds, fileUrl, makeAudio, makeImage, onlyFile, withBuild } from './media.js';

const run = (input: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return waveformEngine.execute({ nodeType: 'waveform_video', subModelId: 'waveform-video', input, options: {} }, t.ctx);
};

const audio = fileUrl(makeAudio('wf', 1.5));

for (const build of builds()) {
  for (const style of ['waveform', 'spectrum', 'bars']) {
    test(`waveform_video (${build} ffmpeg, ${style}): as long as the audio, with the audio`, async () => {
      withBuild(build);
      const out = onlyFile(await run({ audio_url: audio, style, width: 320, height: 240, fps: 25, color: '#ffcc00', background_color: '#101020' }));
      await assertMp4(out, { width: 320, height: 240, seconds: 1.5, tolerance: 0.1, audio: true });
    });
  }
}

test('waveform_video: an image is not audio', async () => {
  withBuild(builds()[0]!);
  await assert.rejects(run({ audio_url: fileUrl(makeImage('wf-not-audio', 64, 64)) }), EngineInputError);
});
