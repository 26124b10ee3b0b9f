import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { requireFfmpeg, useVideoFfmpegBuild, videoFfmpegInfo } from '../../../src/engines/local/video/ffmpegBuild.js';
import { kenBurnsEngine } from '../../../src/engines/local/video/kenBurns.js';
import { waveformEngine } from '../../../src/engines/local/video/waveform.js';
import { EngineError, EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { builds, fileUrl, makeAudio, makeImage } from './media.js';

test('build choice: the setter and ATELIER_VIDEO_FFMPEG pick the static or the system ffmpeg', () => {
  useVideoFfmpegBuild('static');
  const s = requireFfmpeg();
  assert.equal(s.system, false);
  assert.equal(s.ffprobe, undefined);
  assert.match(spawnSync(s.ffmpeg, ['-version'], { encoding: 'utf8' }).stdout, /ffmpeg version/);
  useVideoFfmpegBuild(undefined);
  process.env.ATELIER_VIDEO_FFMPEG = 'static';
  assert.equal(videoFfmpegInfo()?.system, false);
  process.env.ATELIER_VIDEO_FFMPEG = 'system';
  assert.equal(videoFfmpegInfo()?.system ?? false, builds().includes('system'));
  delete process.env.ATELIER_VIDEO_FFMPEG;
});

for (const build of builds()) {
  test(`cancel (${build} ffmpeg): aborting stops ffmpeg and the run fails at once`, async () => {
    useVideoFfmpegBuild(build);
    const ac = new AbortController();
    const t = testContext({ signal: ac.signal });
    try {
      // Long enough (60 s of 1080p) that only the abort can end it quickly.
      const run = kenBurnsEngine.execute({ nodeType: 'ken_burns_video', subModelId: 'ken-burns-video', input: { image_url: fileUrl(makeImage('cancel', 320, 240)), duration: 60, width: 1920, height: 1080, fps: 30, motion: 'zoom_in', zoom: 1.3 }, options: {} }, t.ctx);
      setTimeout(() => ac.abort(), 800);
      // Unaborted, the encode would finish and resolve: the rejection is what shows ffmpeg was stopped.
      await assert.rejects(run, EngineError);
    } finally {
      t.cleanup();
    }
  });
}

test('progress: rises from 0 to 1 and never goes back', async () => {
  useVideoFfmpegBuild(builds()[0]);
  const t = testContext();
  try {
    await waveformEngine.execute({ nodeType: 'waveform_video', subModelId: 'waveform-video', input: { audio_url: fileUrl(makeAudio('progress', 3)), width: 320, height: 240, fps: 25, style: 'waveform' }, options: {} }, t.ctx);
    const values = t.progress.map(([p]) => p);
    assert.equal(values[0], 0);
    assert.equal(values.at(-1), 1);
    for (let i = 1; i < values.length; i++) assert.ok(values[i]! >= values[i - 1]!, `progress went back: ${values.join(', ')}`);
    assert.ok(values.some((v) => v > 0.1 && v < 1), `ffmpeg's own progress was reported: ${values.join(', ')}`);
  } finally {
    t.cleanup();
  }
});

test('inputs: a colour that is not #rrggbb never reaches a filter graph', async () => {
  useVideoFfmpegBuild(builds()[0]);
  const t = testContext();
  try {
    await assert.rejects(waveformEngine.execute({ nodeType: 'waveform_video', subModelId: 'waveform-video', input: { audio_url: fileUrl(makeAudio('color', 1)), color: 'red[x];[x]' }, options: {} }, t.ctx), EngineInputError);
  } finally {
    t.cleanup();
  }
});
