import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { models } from '../../../src/catalog/models/localVideo.js';
import { videoEngines } from '../../../src/engines/local/video/index.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { testContext } from '../../helpers/engineContext.js';
import { fileUrl, inspect, makeAudio, makeImage, makeVideo, onlyFile } from './media.js';

after(closeThreadPools);

// merge_videos and extract_audio are hosted utilities now (catalog/models/utilities.ts, test/engines/utilities.test.ts).
const NODE_TYPES = ['ken_burns_video', 'slideshow_video', 'waveform_video', 'trim_video', 'video_to_gif', 'extract_frame', 'burn_captions'];

test('catalog: the seven video nodeTypes, each bound to an engine that exists and is available here', async () => {
  assert.deepEqual(models.map((m) => m.nodeType), NODE_TYPES);
  const byId = new Map(videoEngines.map((e) => [e.id, e]));
  assert.equal(byId.size, videoEngines.length, 'engine ids are unique');
  for (const m of models) {
    assert.equal(m.category, 'video');
    assert.equal(m.provider, 'local');
    assert.ok(m.icon && /^#[0-9a-f]{6}$/.test(m.accent), m.nodeType);
    assert.equal(m.modes.length, 1);
    const mode = m.modes[0]!;
    assert.equal(mode.subModelId, m.nodeType.replaceAll('_', '-'));
    assert.ok(['image-to-video', 'video-utility'].includes(mode.category));
    assert.equal(mode.category === 'image-to-video', ['ken_burns_video', 'slideshow_video'].includes(m.nodeType));
    assert.deepEqual(mode.outputs.map((o) => o.name), ['result']);
    const engine = byId.get(mode.engine.engine);
    assert.ok(engine, `${m.nodeType}: engine ${mode.engine.engine}`);
    assert.deepEqual(await engine.availability(), { available: true });
    for (const field of mode.fields) {
      if (field.options && field.default !== undefined) assert.ok(field.options.includes(field.default as string), `${m.nodeType}.${field.name} default`);
      if (typeof field.default === 'number') assert.ok(field.default >= (field.min ?? -Infinity) && field.default <= (field.max ?? Infinity), `${m.nodeType}.${field.name} default in range`);
    }
    const r = mode.pricing;
    if (r.kind === 'per_unit') {
      assert.equal(r.unit, 'second');
      assert.ok(mode.fields.some((f2) => f2.name === r.inputField && f2.max === 60));
    } else if (r.kind === 'flat') assert.ok(r.microcredits >= 1000 && r.microcredits <= 3000);
  }
});

/** Field defaults (as the validator fills them) plus the given inputs. */
function inputFor(nodeType: string, given: Record<string, unknown>): Record<string, unknown> {
  const mode = models.find((m) => m.nodeType === nodeType)!.modes[0]!;
  const input: Record<string, unknown> = {};
  for (const field of mode.fields) if (field.default !== undefined) input[field.name] = field.default;
  for (const field of mode.fields.filter((x) => x.required)) assert.ok(field.name in given, `${nodeType}: test gives required ${field.name}`);
  return { ...input, ...given };
}

test('catalog: every model runs with its field defaults (the names engines read are the names the schema has)', async () => {
  const img = fileUrl(makeImage('cat-img', 200, 150));
  const clip = fileUrl(makeVideo('cat-clip', { width: 160, height: 120, seconds: 1 }));
  const audio = fileUrl(makeAudio('cat-audio', 1));
  const small = { width: 160, height: 120 };
  const given: Record<string, Record<string, unknown>> = {
    ken_burns_video: { image_url: img, duration: 1, ...small },
    slideshow_video: { image_urls: [img, img], duration: 2, ...small },
    waveform_video: { audio_url: audio, ...small },
    trim_video: { video_url: clip, start: 0.25 },
    video_to_gif: { video_url: clip },
    extract_frame: { video_url: clip },
    burn_captions: { video_url: clip, captions: 'Hello' },
  };
  for (const m of models) {
    const mode = m.modes[0]!;
    const engine = videoEngines.find((e) => e.id === mode.engine.engine)!;
    const t = testContext();
    try {
      const out = onlyFile(await engine.execute({ nodeType: m.nodeType, subModelId: mode.subModelId, input: inputFor(m.nodeType, given[m.nodeType]!), options: mode.engine.options ?? {} }, t.ctx));
      const kind = mode.outputs[0]!.dataType;
      assert.ok(out.contentType.startsWith(`${kind}/`), `${m.nodeType}: ${out.contentType} for a ${kind} output`);
      const ext = { 'video/mp4': 'mp4', 'image/gif': 'gif', 'image/png': 'png', 'audio/mpeg': 'mp3', 'audio/wav': 'wav' }[out.contentType];
      assert.ok(ext, out.contentType);
      await inspect(out, ext);
    } finally {
      t.cleanup();
    }
  }
});
