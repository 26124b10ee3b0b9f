import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { shapesPng, textPng } from '../engines/image/fixtures.js';
import { makeAudio, makeVideo } from '../engines/video/media.js';

/**
 * Client-shaped tests of the hosted utilities (hosted-compat.md, "Inputs and outputs"): a client written
 * for the hosted service sends the hosted inputs to POST /v1/nodes/{nodeType}/run and reads the hosted
 * output keys — in the polled run record, the run.completed webhook and the SSE stream, and in a
 * workflow's node run, port and Response output. Everything runs for real: the engines, the server, the
 * webhook receiver; media are made here and sent as data: URLs, outputs downloaded and measured.
 */
let srv: TestServer;
let key: string;
let rx: Awaited<ReturnType<typeof startReceiver>>;
/** The path forms this server answers: `/v1`, and `/api/v1` where the hosted base path is served. */
const bases: string[] = ['/v1'];

before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  key = (await srv.user({ microcredits: 10_000_000_000n })).key;
  rx = await startReceiver();
  if ((await srv.request('GET', '/api/v1/credits/balance', { key })).status === 200) bases.push('/api/v1');
});
after(async () => {
  await rx.close();
  await srv.close();
});

const req = (method: string, path: string, body?: unknown) => srv.request(method, path, { key, body });
const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;
const fileData = (file: string, type: string) => dataUrl(fs.readFileSync(file), type);
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

let hooks = 0;

interface Completed {
  run: any;
  /** The run.completed event's `data` as the webhook delivered it and as the SSE stream carried it. */
  hooked: any;
  streamed: any;
}

/** What a hosted client does: create the run, poll it to the end; plus the webhook and SSE views of its end. */
async function runNode(base: string, nodeType: string, input: Record<string, unknown>): Promise<Completed> {
  const hook = `/node-${++hooks}`;
  const created = await req('POST', `${base}/nodes/${nodeType}/run`, { input, webhook: { url: rx.url(hook), events: ['run.completed', 'run.failed'] } });
  assert.equal(created.status, 202, created.text);
  const runId = created.body.runId as string;
  let run: any;
  const end = Date.now() + 240_000;
  for (;;) {
    run = (await req('GET', `${base}/nodes/runs/${runId}`)).body;
    if (['COMPLETED', 'FAILED', 'CANCELED'].includes(run?.status)) break;
    assert.ok(Date.now() < end, `${nodeType} run did not finish: ${JSON.stringify(run).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(run.status, 'COMPLETED', `${nodeType}: ${run.error}`);
  await rx.waitFor(() => rx.forPath(hook).length >= 1, 60_000);
  const hooked = rx.forPath(hook)[0]!.json;
  assert.equal(hooked.type, 'run.completed');
  const sse = await (await fetch(`${srv.url}${base}/nodes/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
  const m = /event: run\.completed\ndata: (.*)\n/.exec(sse);
  assert.ok(m, sse);
  return { run, hooked: hooked.data, streamed: JSON.parse(m[1]!).data };
}

/** The run record, the webhook and the SSE event all carry exactly these output keys. */
function assertKeys(c: Completed, keys: string[]): void {
  assert.deepEqual(Object.keys(c.run.output).sort(), [...keys].sort(), 'run record output keys');
  assert.deepEqual(Object.keys(c.hooked.outputs).sort(), [...keys].sort(), 'webhook outputs keys');
  assert.deepEqual(Object.keys(c.streamed.outputs).sort(), [...keys].sort(), 'SSE outputs keys');
}

/** A media output is a list of one URL that downloads (hosted: `dataType: "string[]"`). */
async function onlyUrl(c: Completed, name: string): Promise<Buffer> {
  const list = c.run.output[name];
  assert.ok(Array.isArray(list) && list.length === 1 && typeof list[0] === 'string', `${name}: ${JSON.stringify(list)}`);
  assert.ok(Array.isArray(c.hooked.outputs[name]) && Array.isArray(c.streamed.outputs[name]));
  const res = await fetch(list[0]);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

const shapes = dataUrl(shapesPng(320, 240), 'image/png');

describe('hosted utilities through the API', () => {
  test('crop_image with percentages (once refused: "x_percent is not an input of this model", "width is required")', async () => {
    for (const base of bases) {
      const c = await runNode(base, 'crop_image', { image_url: shapes, x_percent: 50, y_percent: 0, width_percent: 50, height_percent: 50 });
      assertKeys(c, ['image_url']);
      const png = await onlyUrl(c, 'image_url');
      const meta = await sharp(png).metadata();
      assert.deepEqual([meta.width, meta.height], [160, 120], 'the top-right quarter of 320×240');
      // The top-right block of the fixture is green.
      const { data } = await sharp(png).extract({ left: 80, top: 60, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([...data.subarray(0, 3)], [0, 255, 0]);
      assert.equal(c.run.creditUsed, 5000, 'the hosted per-image price');
    }
    // Only the position given: the rest keeps the hosted defaults (width and height 100%, clipped).
    const c = await runNode('/v1', 'crop_image', { image_url: shapes, x_percent: 25 });
    const meta = await sharp(await onlyUrl(c, 'image_url')).metadata();
    assert.deepEqual([meta.width, meta.height], [240, 240]);
  });

  test('crop_image with pixels: a width and height alone are cut from the centre', async () => {
    const c = await runNode('/v1', 'crop_image', { image_url: shapes, width_px: 100, height_px: 60 });
    assertKeys(c, ['image_url']);
    const png = await onlyUrl(c, 'image_url');
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.width, meta.height], [100, 60]);
    // Centred: the picture's white centre cross is at the crop's centre, the red block at its top left.
    const px = async (x: number, y: number) => [...(await sharp(png).extract({ left: x, top: y, width: 1, height: 1 }).raw().toBuffer()).subarray(0, 3)];
    assert.deepEqual(await px(50, 30), [255, 255, 255]);
    assert.deepEqual(await px(5, 5), [255, 0, 0]);
    const placed = await runNode('/v1', 'crop_image', { image_url: shapes, x_px: 170, y_px: 10, width_px: 140, height_px: 100, x_percent: 0 });
    assert.deepEqual([(await sharp(await onlyUrl(placed, 'image_url')).metadata()).width, placed.run.files[0].height], [140, 100]);
  });

  test('crop_image refuses what the hosted schema refuses, with the error body', async () => {
    const r = await req('POST', '/v1/nodes/crop_image/run', { input: { image_url: shapes, x_percent: 101 } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'VALIDATION_ERROR');
    assert.match(r.body.message, /x_percent/);
    const old = await req('POST', '/v1/nodes/crop_image/run', { input: { image_url: shapes, left: 0, top: 0, width: 10, height: 10 } });
    assert.equal(old.status, 400, 'the old pixel names are gone');
    assert.match(old.body.message, /is not an input of this model/);
  });

  test('merge_videos with fade: video_url, the clips overlapping', async () => {
    const a = fileData(makeVideo('compat-a', { width: 320, height: 240, seconds: 1.5, color: 'white' }), 'video/mp4');
    const b = fileData(makeVideo('compat-b', { width: 320, height: 240, seconds: 1.5, color: 'black' }), 'video/mp4');
    const c = await runNode('/v1', 'merge_videos', { video_urls: [a, b], transition: 'fade' });
    assertKeys(c, ['video_url']);
    const mp4 = await onlyUrl(c, 'video_url');
    assert.equal(mp4.toString('latin1', 4, 8), 'ftyp');
    const file = c.run.files[0];
    assert.equal(file.contentType, 'video/mp4');
    assert.ok(Math.abs(file.durationSeconds - 2.5) < 0.2, `1.5 + 1.5 − 0.5 s of crossfade: ${file.durationSeconds}`);
    assert.equal(c.run.creditUsed, 50_000);
    const r = await req('POST', '/v1/nodes/merge_videos/run', { input: { video_urls: [a, b], transition: 'wipe' } });
    assert.equal(r.status, 400);
  });

  test('extract_audio to mp3: audio_url', async () => {
    const video = fileData(makeVideo('compat-ea', { width: 160, height: 120, seconds: 1.2 }), 'video/mp4');
    const c = await runNode('/v1', 'extract_audio', { video_url: video, format: 'mp3' });
    assertKeys(c, ['audio_url']);
    const mp3 = await onlyUrl(c, 'audio_url');
    assert.equal(c.run.files[0].contentType, 'audio/mpeg');
    assert.ok(mp3.length > 1000);
    assert.equal(c.run.creditUsed, 20_000);
  });

  test('merge_audio_video: video_url, the audio under the pictures', async () => {
    const video = fileData(makeVideo('compat-mav', { width: 160, height: 120, seconds: 1.5, audio: false }), 'video/mp4');
    const audio = fileData(makeAudio('compat-mav-a', 1), 'audio/wav');
    const c = await runNode('/v1', 'merge_audio_video', { video_url: video, audio_url: audio, audio_volume: 0.8 });
    assertKeys(c, ['video_url']);
    await onlyUrl(c, 'video_url');
    assert.ok(Math.abs(c.run.files[0].durationSeconds - 1.5) < 0.2, `the video's length: ${c.run.files[0].durationSeconds}`);
    assert.equal(c.run.creditUsed, 30_000);
  });

  test('document_ocr on a rendered text image: text and content_url', async () => {
    const page = dataUrl(textPng(['Invoice 2048 paid', 'Quick brown fox'], 640), 'image/png');
    const c = await runNode('/v1', 'document_ocr', { file_url: page });
    assertKeys(c, ['content_url', 'text']);
    assert.match(c.run.output.text.toLowerCase(), /invoice 2048 paid/);
    assert.equal(typeof c.run.output.content_url, 'string');
    assert.equal(c.hooked.outputs.text, c.run.output.text);
    const full = (await download(c.run.output.content_url)).toString('utf8');
    assert.match(full.toLowerCase(), /quick brown fox/);
    assert.equal(c.run.creditUsed, 650);
  });

  test('an image model answers result with resultMetadata per image', async () => {
    const c = await runNode('/v1', 'qr_code', { text: 'https://example.com/hosted' });
    assert.ok(Array.isArray(c.run.output.result) && c.run.output.result.length === 1);
    const [meta] = c.run.output.resultMetadata;
    const file = c.run.files[0];
    assert.deepEqual(meta, { size: file.bytes, width: file.width, height: file.height, modelId: 'qr-code', mimeType: 'image/png', mediaType: 'image' });
    assert.equal((await download(c.run.output.result[0])).length, meta.size);
    assert.deepEqual(c.hooked.outputs.resultMetadata, c.run.output.resultMetadata);
  });

  test('the catalog prices each utility at the hosted default estimate', async () => {
    for (const [id, micro] of [['crop_image', 5000], ['merge_videos', 50_000], ['extract_audio', 20_000], ['merge_audio_video', 30_000], ['document_ocr', 650]] as const) {
      const p = await req('GET', `/v1/models/${id}/pricing`);
      assert.equal(p.status, 200, p.text);
      assert.equal(p.body.examples[0].microcredits, micro, id);
      const s = await req('GET', `/v1/models/${id}/schema`);
      assert.equal(s.status, 200, s.text);
    }
  });
});

/** Request (one image) → crop_image → Response, built the way the API's clients build workflows. */
async function cropWorkflow(outHandle: string): Promise<{ id: string; request: string; crop: string; response: string }> {
  const wf = await req('POST', '/v1/workflows/quick-create', { name: 'Crop', requestFields: [{ name: 'image', type: 'image' }] });
  assert.equal(wf.status, 201, wf.text);
  const node = await req('POST', `/v1/workflows/${wf.body.id}/nodes`, { nodeType: 'crop_image', column: 1, inputs: { width_percent: 50, height_percent: 50 } });
  assert.equal(node.status, 201, node.text);
  const field = wf.body.requestFields[0].id;
  for (const [s, sh, t, th] of [[wf.body.requestNodeId, field, node.body.nodeId, 'in:image_url'], [node.body.nodeId, outHandle, wf.body.responseNodeId, 'result']]) {
    const edge = await req('POST', `/v1/workflows/${wf.body.id}/edges`, { sourceNodeId: s, sourceHandle: sh, targetNodeId: t, targetHandle: th });
    assert.equal(edge.status, 201, edge.text);
  }
  return { id: wf.body.id, request: wf.body.requestNodeId, crop: node.body.nodeId, response: wf.body.responseNodeId };
}

describe('hosted output keys in workflows', () => {
  test('the node run, the out:image_url port, node.completed and run.completed carry image_url', async () => {
    const w = await cropWorkflow('out:image_url');
    const hook = '/wf-crop';
    const r = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.request]: { image: shapes } }, webhook: { url: rx.url(hook), events: ['node.completed', 'run.completed'] } });
    assert.equal(r.status, 202, r.text);
    let run: any;
    const end = Date.now() + 240_000;
    do {
      await new Promise((res) => setTimeout(res, 100));
      run = (await req('GET', `/v1/runs/${r.body.runId}?inDetails=true`)).body;
      assert.ok(Date.now() < end, JSON.stringify(run).slice(0, 300));
    } while (!['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status));
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run).slice(0, 500));
    const nodeRun = run.nodeRuns.find((n: any) => n.nodeId === w.crop);
    assert.deepEqual(Object.keys(nodeRun.output), ['image_url']);
    const png = await download(nodeRun.output.image_url[0]);
    assert.deepEqual([(await sharp(png).metadata()).width, (await sharp(png).metadata()).height], [160, 120]);
    const responseOut = JSON.stringify(run.output ?? run.outputs);
    assert.match(responseOut, /out:image_url/, responseOut);
    await rx.waitFor(() => rx.forPath(hook).some((h) => h.json.type === 'run.completed'), 60_000);
    const nodeDone = rx.forPath(hook).find((h) => h.json.type === 'node.completed')!.json.data;
    assert.deepEqual(Object.keys(nodeDone.output), ['image_url']);
    const runDone = rx.forPath(hook).find((h) => h.json.type === 'run.completed')!.json.data;
    assert.ok(Array.isArray(runDone.outputs[w.crop]['out:image_url']), JSON.stringify(runDone.outputs));
    const sse = await (await fetch(`${srv.url}/v1/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
    const node = /event: node\.completed\ndata: (.*)\n/.exec(sse);
    assert.ok(node, sse);
    assert.deepEqual(Object.keys(JSON.parse(node[1]!).data.output), ['image_url']);
  });

  test('an edge saved with the old out:result handle is read as out:image_url, and the workflow runs', async () => {
    const w = await cropWorkflow('out:result');
    const got = await req('GET', `/v1/workflows/${w.id}`);
    const edge = got.body.edges.find((e: any) => e.source === w.crop);
    assert.equal(edge.sourceHandle, 'out:image_url');
    // A graph stored before the rename (written straight to the database, as an old version left it): the
    // old output handle, and the crop node's old pixel inputs.
    await srv.services.db.query(
      `UPDATE workflows SET graph = jsonb_set(jsonb_set(graph, '{edges}', (SELECT jsonb_agg(CASE WHEN e->>'sourceHandle' = 'out:image_url' THEN jsonb_set(e, '{sourceHandle}', '"out:result"') ELSE e END) FROM jsonb_array_elements(graph->'edges') e)),
         '{nodes}', (SELECT jsonb_agg(CASE WHEN n->>'id' = $2 THEN jsonb_set(n, '{data}', '{"left": 10, "top": 20, "width": 100, "height": 50}') ELSE n END) FROM jsonb_array_elements(graph->'nodes') n))
       WHERE id = $1`,
      [w.id, w.crop],
    );
    const stored = (await srv.services.db.query(`SELECT graph FROM workflows WHERE id = $1`, [w.id])).rows[0].graph;
    assert.ok(stored.edges.some((e: any) => e.sourceHandle === 'out:result'), 'the old handle is in the database');
    const read = (await req('GET', `/v1/workflows/${w.id}`)).body;
    assert.equal(read.edges.find((e: any) => e.source === w.crop).sourceHandle, 'out:image_url');
    assert.deepEqual(read.nodes.find((n: any) => n.id === w.crop).data, { x_px: 10, y_px: 20, width_px: 100, height_px: 50 });
    const r = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.request]: { image: shapes } } });
    assert.equal(r.status, 202, r.text);
    let run: any;
    const end = Date.now() + 240_000;
    do {
      await new Promise((res) => setTimeout(res, 100));
      run = (await req('GET', `/v1/runs/${r.body.runId}?inDetails=true`)).body;
      assert.ok(Date.now() < end);
    } while (!['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status));
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run).slice(0, 500));
    assert.match(JSON.stringify(run.output ?? run.outputs), /out:image_url/);
    const cropped = run.nodeRuns.find((n: any) => n.nodeId === w.crop).output.image_url[0];
    const meta = await sharp(await download(cropped)).metadata();
    assert.deepEqual([meta.width, meta.height], [100, 50], 'the old pixel inputs, under their new names');
  });
});
