import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { describeEngine } from '../../../src/engines/local/image/ml/describe.js';
import { facesEngine } from '../../../src/engines/local/image/ml/faces.js';
import { moderationEngine } from '../../../src/engines/local/image/ml/moderation.js';
import { objectsEngine } from '../../../src/engines/local/image/ml/objects.js';
import { files, meta, NO_PORTRAIT, png, portraitUrl, run, shapesPng, text, textPng } from './fixtures.js';

after(() => closeThreadPools());

describe('image understanding (human, nsfwjs on tfjs WASM)', () => {
  it('analyze_faces finds the face in the portrait with age, emotions and landmarks', { skip: NO_PORTRAIT }, async (t) => {
    const started = Date.now();
    const { out } = await run(facesEngine, { image_url: portraitUrl(), max_faces: 5 });
    t.diagnostic(`analyze_faces first call (loads models): ${Date.now() - started} ms`);
    const r = JSON.parse(text(out)) as { count: number; faces: Array<{ box: { x: number; y: number; width: number; height: number }; age: number; emotions: unknown[]; landmarks: Record<string, [number, number]> }> };
    assert.equal(r.count, 1);
    const face = r.faces[0]!;
    // The face of the 512×600 portrait sits roughly in x 120..400, y 90..380.
    assert.ok(face.box.x > 60 && face.box.x < 200 && face.box.y > 40 && face.box.y < 200, JSON.stringify(face.box));
    assert.ok(face.age > 30 && face.age < 100, `age ${face.age}`);
    assert.ok(face.emotions.length > 0);
    const { leftEye, rightEye, mouth } = face.landmarks;
    assert.ok(mouth![1] > leftEye![1] && mouth![1] > rightEye![1], 'the mouth is below the eyes');
    const annotated = files(out)[0]!;
    assert.deepEqual([(await meta(annotated)).width, (await meta(annotated)).height], [512, 600]);
    const warm = Date.now();
    await run(facesEngine, { image_url: portraitUrl() });
    t.diagnostic(`analyze_faces warm call: ${Date.now() - warm} ms`);
  });

  it('analyze_faces answers count 0 on a picture without faces', async () => {
    const { out } = await run(facesEngine, { image_url: png(shapesPng()) });
    assert.equal((JSON.parse(text(out)) as { count: number }).count, 0);
  });

  it('detect_objects finds the person in the portrait', { skip: NO_PORTRAIT }, async (t) => {
    const started = Date.now();
    const { out } = await run(objectsEngine, { image_url: portraitUrl(), min_score: 0.3 });
    t.diagnostic(`detect_objects: ${Date.now() - started} ms`);
    const r = JSON.parse(text(out)) as { objects: Array<{ label: string; score: number; box: { width: number } }> };
    const person = r.objects.find((o) => o.label === 'person');
    assert.ok(person, JSON.stringify(r.objects));
    assert.ok(person.box.width > 250);
    const annotated = files(out)[0]!;
    // Boxes are drawn: the annotated copy differs from the input.
    const a = await sharp(annotated.data).removeAlpha().raw().toBuffer();
    const b = await sharp(Buffer.from(portraitUrl().split(',')[1]!, 'base64')).removeAlpha().raw().toBuffer();
    let changed = 0;
    for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - b[i]!) > 60) changed++;
    assert.ok(changed > 500, `${changed} channel values changed by the boxes`);
  });

  it('moderate_image scores a drawing and a portrait as safe', async (t) => {
    const started = Date.now();
    const { out } = await run(moderationEngine, { image_url: png(shapesPng()), threshold: 0.5 });
    t.diagnostic(`moderate_image first call: ${Date.now() - started} ms`);
    const r = JSON.parse(text(out)) as { flagged: boolean; scores: Record<string, number> };
    assert.deepEqual(Object.keys(r.scores).sort(), ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy']);
    assert.ok(Math.abs(Object.values(r.scores).reduce((s, v) => s + v, 0) - 1) < 0.01);
    assert.equal(r.flagged, false);
    assert.deepEqual(out.flagged, { kind: 'boolean', value: false });
    if (!NO_PORTRAIT) {
      const { out: p } = await run(moderationEngine, { image_url: portraitUrl() });
      const pr = JSON.parse(text(p)) as { top: string; flagged: boolean };
      assert.equal(pr.top, 'Neutral');
      assert.equal(pr.flagged, false);
    }
  });

  it('describe_image builds its sentence from detections, text and colours', { skip: NO_PORTRAIT }, async (t) => {
    // The portrait with a caption band under it: a face, a person and words to read.
    const portrait = Buffer.from(portraitUrl().split(',')[1]!, 'base64');
    const caption = textPng(['Grace Hopper'], 512);
    const combined = await sharp({ create: { width: 512, height: 600 + 110, channels: 3, background: '#ffffff' } })
      .composite([{ input: portrait, left: 0, top: 0 }, { input: await sharp(caption).resize(512, 110, { fit: 'fill' }).toBuffer(), left: 0, top: 600 }])
      .png().toBuffer();
    const started = Date.now();
    const { out } = await run(describeEngine, { image_url: png(combined), detail: 'detailed' });
    t.diagnostic(`describe_image: ${Date.now() - started} ms`);
    const sentence = text(out);
    t.diagnostic(sentence);
    assert.match(sentence, /person/);
    assert.match(sentence, /One face is visible/);
    assert.match(sentence, /Grace Hopper/);
    assert.match(sentence, /main colours are/);
    const details = JSON.parse(text(out, 'details')) as { objects: unknown[]; faces: unknown[] };
    assert.ok(details.objects.length >= 1 && details.faces.length === 1);
  });
});
