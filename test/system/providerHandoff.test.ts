import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { S3RVER_CREDENTIALS, startS3Server, type S3TestServer } from '../helpers/s3.js';
import { startFalFake, type FalFake } from '../helpers/providers/fal.js';
import { startReplicateFake, type ReplicateFake } from '../helpers/providers/replicate.js';
import { startComfyFake, TXT2IMG_WORKFLOW, type ComfyFake } from '../helpers/providers/comfyui.js';
import { makePng } from '../helpers/providers/media.js';
import { providerUrl } from '../../src/files/handOff.js';

/**
 * Issue 28, item 4, through whole Atelier servers and real HTTP fakes of fal, Replicate and ComfyUI:
 * media inputs that are our own files reach the provider as a URL it fetches itself (our signed URL under
 * PUBLIC_URL, or the S3 store's presigned URL), and a paid submit whose connection dropped after the
 * provider accepted it starts exactly one job — the run then completes, or fails saying so and is refunded.
 */
const FAL_KEY = 'handoff-fal-key';
const REPLICATE_TOKEN = 'r8_handoff_token_0123456789';
const PUBLIC_URL = 'http://127.0.0.1:9'; // where a proxy would publish us; the providers here share loopback

let fal: FalFake;
let replicate: ReplicateFake;
let comfy: ComfyFake;
let s3: S3TestServer;
let dir: string;
let local: TestServer; // local store, PUBLIC_URL set
let bucket: TestServer; // S3 store, no PUBLIC_URL

const mode = (subModelId: string, fields: unknown[], engine: unknown) => ({
  subModelId, label: subModelId, category: 'image-to-image', fields, pricing: { kind: 'flat', microcredits: 7000 }, engine,
});
const model = (nodeType: string, m: ReturnType<typeof mode>) => ({ nodeType, name: nodeType, description: 'issue 28 hand-off', category: 'image', modes: [m] });

before(async () => {
  [fal, replicate, comfy, s3] = await Promise.all([startFalFake(FAL_KEY), startReplicateFake(REPLICATE_TOKEN), startComfyFake(), startS3Server()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-handoff-'));
  const file = path.join(dir, 'atelier.models.json');
  fs.writeFileSync(file, JSON.stringify({
    models: [
      model('edit_fal', mode('edit-fal', ['prompt', 'image_url'], { engine: 'fal', options: { model: 'fal-ai/flux-pro/v1.1' } })),
      model('edit_replicate', mode('edit-replicate', ['prompt', 'image_url'], { engine: 'replicate', options: { model: 'black-forest-labs/flux-1.1-pro' } })),
      model('draw_fal', mode('draw-fal', ['prompt'], { engine: 'fal', options: { model: 'fal-ai/flux-pro/v1.1' } })),
      model('draw_replicate', mode('draw-replicate', ['prompt'], { engine: 'replicate', options: { model: 'black-forest-labs/flux-1.1-pro' } })),
      model('draw_comfy', mode('draw-comfy', ['prompt'], { engine: 'comfyui', options: { workflow: TXT2IMG_WORKFLOW, defaults: { width: 512, height: 512, num_images: 1, negative_prompt: '', seed: 1 } } })),
    ],
  }));
  // The engine children read the provider variables from the environment, as a deployment's do.
  Object.assign(process.env, {
    FAL_KEY, FAL_QUEUE_URL: `${fal.url}/queue`, FAL_BASE_URL: `${fal.url}/run`, FAL_STORAGE_URL: fal.url,
    REPLICATE_API_TOKEN: REPLICATE_TOKEN, REPLICATE_BASE_URL: `${replicate.url}/v1`, COMFYUI_URL: comfy.url,
    ATELIER_MODELS_FILE: file, ATELIER_ALLOW_PRIVATE_URLS: '1',
  });
  // The S3 client finds its credentials where production's does: the SDK's chain, here the environment.
  Object.assign(process.env, S3RVER_CREDENTIALS);
  local = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_BLOB_STORE: 'local', PUBLIC_URL });
  bucket = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ...(await s3.bucketEnv('handoff')) });
});
after(async () => {
  await local?.close();
  await bucket?.close();
  await Promise.all([fal?.close(), replicate?.close(), comfy?.close(), s3?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A PNG of about `size` bytes, uploaded through POST /v1/files. */
async function uploadPng(srv: TestServer, key: string, size: number): Promise<{ id: string; url: string; bytes: Buffer }> {
  const bytes = Buffer.concat([makePng(16, 16), Buffer.alloc(Math.max(0, size - 200))]);
  const res = await fetch(`${srv.url}/v1/files?filename=in.png`, { method: 'POST', body: new Uint8Array(bytes), headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' } });
  const body = (await res.json()) as { id: string; url: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return { id: body.id, url: body.url, bytes };
}

async function runToEnd(srv: TestServer, key: string, nodeType: string, input: Record<string, unknown>) {
  const r = await srv.request('POST', `/v1/nodes/${nodeType}/run`, { key, body: { input } });
  assert.equal(r.status, 202, r.text);
  return waitForStatus(srv, key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
}

async function ledgerOf(srv: TestServer, key: string, runId: string): Promise<string[]> {
  const items = (await srv.request('GET', '/v1/credits/ledger?limit=200', { key })).body.items as Array<{ kind: string; runId: string | null }>;
  return items.filter((r) => r.runId === runId).map((r) => r.kind).sort();
}

/** What a provider gets when it fetches the URL: no key, from wherever it is (here the test process). */
async function fetchAsProvider(url: string, srv: TestServer): Promise<Buffer> {
  // PUBLIC_URL is where a proxy would publish us; the request reaches this server's listen address.
  const u = new URL(url);
  const target = u.origin === PUBLIC_URL ? `${srv.url}${u.pathname}${u.search}` : url;
  const res = await fetch(target);
  assert.equal(res.status, 200, `${target}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

describe('media inputs reach the provider as a URL it fetches', () => {
  test('PUBLIC_URL set: an uploaded image goes to fal as its signed file URL — no fal storage upload, no data: URI — and that URL serves the bytes without a key', async () => {
    const u = await local.user();
    const file = await uploadPng(local, u.key, 600_000);
    const initiates = fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length;
    const run = await runToEnd(local, u.key, 'edit_fal', { prompt: 'repaint', image_url: file.url });
    assert.equal(run.status, 'COMPLETED', run.error);
    const sent = fal.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).at(-1)!.json();
    assert.ok(sent.image_url.startsWith(`${PUBLIC_URL}/v1/files/${file.id}?exp=`), sent.image_url);
    assert.match(sent.image_url, /&sig=/);
    assert.equal(fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length, initiates, 'no upload to fal storage');
    assert.deepEqual(await fetchAsProvider(sent.image_url, local), file.bytes);
  });

  test('PUBLIC_URL set: an image over Replicate\'s 256 KB inline limit goes as its signed file URL — no POST /v1/files, no data: URI', async () => {
    const u = await local.user();
    const file = await uploadPng(local, u.key, 400_000);
    const uploads = replicate.callsTo('POST', /^\/v1\/files$/).length;
    const run = await runToEnd(local, u.key, 'edit_replicate', { prompt: 'repaint', image_url: file.url });
    assert.equal(run.status, 'COMPLETED', run.error);
    const sent = replicate.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).at(-1)!.json();
    assert.ok(sent.input.image_url.startsWith(`${PUBLIC_URL}/v1/files/${file.id}?exp=`), sent.input.image_url);
    assert.ok(!JSON.stringify(sent).includes('data:'));
    assert.equal(replicate.callsTo('POST', /^\/v1\/files$/).length, uploads);
    assert.deepEqual(await fetchAsProvider(sent.input.image_url, local), file.bytes);
  });

  test('S3 store: an uploaded image goes to fal as the bucket\'s presigned GET URL, which serves the bytes', async () => {
    const u = await bucket.user();
    const file = await uploadPng(bucket, u.key, 300_000);
    const initiates = fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length;
    const run = await runToEnd(bucket, u.key, 'edit_fal', { prompt: 'repaint', image_url: file.url });
    assert.equal(run.status, 'COMPLETED', run.error);
    const sent = fal.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).at(-1)!.json();
    assert.ok(sent.image_url.startsWith(`${s3.endpoint}/handoff/`), sent.image_url);
    assert.match(sent.image_url, /X-Amz-Signature=/);
    assert.equal(fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length, initiates);
    assert.deepEqual(await fetchAsProvider(sent.image_url, bucket), file.bytes);
  });

  test('no URL a provider can reach: a PUBLIC_URL on a loopback address is handed over only with ATELIER_ALLOW_PRIVATE_URLS=1; a public one always', async () => {
    const u = await local.user();
    const file = await uploadPng(local, u.key, 1000);
    const rec = (await local.services.files.get(file.id))!;
    const files = local.services.files;
    assert.equal(await providerUrl(files, rec, { publicUrl: PUBLIC_URL, allowPrivate: false, ttlSeconds: 3600 }), undefined);
    assert.equal(await providerUrl(files, rec, { publicUrl: undefined, allowPrivate: true, ttlSeconds: 3600 }), undefined, 'no PUBLIC_URL: the listen address is no URL for a provider');
    assert.match((await providerUrl(files, rec, { publicUrl: PUBLIC_URL, allowPrivate: true, ttlSeconds: 3600 }))!, /\/v1\/files\/file_\w+\?exp=\d+&sig=/);
    // A public address (an IP literal: no DNS needed) is reachable whatever the private-address switch says.
    assert.ok(await providerUrl(files, rec, { publicUrl: 'https://93.184.216.34', allowPrivate: false, ttlSeconds: 3600 }));
  });

  test('a data: URI input (no file of ours, so no URL to hand over) goes through fal\'s storage upload, as before', async () => {
    const u = await local.user();
    // A data: URI input is no file of ours: it has no URL to hand over.
    const png = makePng(8, 8);
    const initiates = fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length;
    const run = await runToEnd(local, u.key, 'edit_fal', { prompt: 'repaint', image_url: `data:image/png;base64,${png.toString('base64')}` });
    assert.equal(run.status, 'COMPLETED', run.error);
    const sent = fal.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).at(-1)!.json();
    assert.match(sent.image_url, /\/cdn\//);
    assert.equal(fal.callsTo('POST', /^\/storage\/upload\/initiate$/).length, initiates + 1);
  });
});

describe('a paid submit accepted, then its connection dropped: one job at the provider', () => {
  test('fal: the run fails saying the job was not submitted again, and is refunded', async () => {
    const u = await local.user();
    const before = await balance(local, u.key);
    const jobs = fal.jobs.size;
    fal.inject('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/, { passThrough: true, drop: true });
    const run = await runToEnd(local, u.key, 'draw_fal', { prompt: 'a fox, cut off' });
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /not submitted again/);
    assert.equal(fal.jobs.size - jobs, 1, 'exactly one job started at fal');
    assert.equal(run.creditUsed, 0);
    assert.deepEqual(await ledgerOf(local, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(local, u.key), before);
  });

  test('Replicate: the prediction is found by listing and the run completes, charged once', async () => {
    const u = await local.user();
    const predictions = replicate.predictions.size;
    replicate.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
    const run = await runToEnd(local, u.key, 'draw_replicate', { prompt: 'a fox, cut off on Replicate' });
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(replicate.predictions.size - predictions, 1, 'exactly one prediction');
    assert.deepEqual(await ledgerOf(local, u.key, run.id), ['capture', 'reserve']);
    assert.equal(run.creditUsed, 7000);
  });

  test('Replicate: two predictions alike cannot be told apart, so the run fails clearly and is refunded', async () => {
    const u = await local.user();
    const before = await balance(local, u.key);
    // Another client of the same Replicate account ran the same prompt a moment ago.
    await fetch(`${replicate.url}/v1/models/black-forest-labs/flux-1.1-pro/predictions`, {
      method: 'POST', headers: { authorization: `Bearer ${REPLICATE_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: { prompt: 'the same fox twice' } }),
    });
    const predictions = replicate.predictions.size;
    replicate.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
    const run = await runToEnd(local, u.key, 'draw_replicate', { prompt: 'the same fox twice' });
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /cannot be told/);
    assert.equal(replicate.predictions.size - predictions, 1, 'not created again');
    assert.deepEqual(await ledgerOf(local, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(local, u.key), before);
  });

  test('ComfyUI: the prompt is found by its prompt_id and the run completes; queued once', async () => {
    const u = await local.user();
    const submits = comfy.submits.length;
    comfy.inject('POST', /^\/prompt$/, { passThrough: true, drop: true });
    const run = await runToEnd(local, u.key, 'draw_comfy', { prompt: 'a fox, cut off on ComfyUI' });
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(comfy.submits.length - submits, 1, 'exactly one prompt queued');
    assert.deepEqual(await ledgerOf(local, u.key, run.id), ['capture', 'reserve']);
  });
});
