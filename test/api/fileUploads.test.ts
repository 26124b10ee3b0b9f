import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { pngSizedBytes } from '../helpers/uploadBytes.js';
import { waitForStatus } from '../helpers/poll.js';

/**
 * Issue 28, items 1 and 2: POST /v1/files (raw, multipart, URL, data: URI, base64), checked against its
 * bytes and the account's quota, and the media library GET /v1/files with exact cursors and filters.
 */
let srv: TestServer;
let media: http.Server;
let mediaUrl = '';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-files-'));
const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;

/** A small real MP4 (2 s, with sound), made by ffmpeg's test sources. */
function smallVideo(): Buffer {
  const out = path.join(tmp, 'clip.mp4');
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440',
    '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', out]);
  assert.equal(r.status, 0, String(r.stderr));
  return fs.readFileSync(out);
}

before(async () => {
  srv = await startTestServer({ ATELIER_STORAGE_QUOTA_MB: '3', ATELIER_UPLOADS_PER_MINUTE: '0', ATELIER_ALLOW_PRIVATE_URLS: '1' });
  media = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(pngSizedBytes(5000));
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaUrl = `http://127.0.0.1:${(media.address() as { port: number }).port}/pic.png`;
});
after(async () => {
  media?.close();
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function upload(key: string, body: BodyInit, headers: Record<string, string> = {}, query = '') {
  const res = await fetch(`${srv.url}/v1/files${query}`, { method: 'POST', body, headers: { authorization: `Bearer ${key}`, ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

describe('POST /v1/files', () => {
  test('a raw body streams in: 201 with id, signed URL, the sniffed type, bytes and the image\'s size; the bytes download back', async () => {
    const u = await srv.user();
    const png = pngSizedBytes(40_000);
    const r = await upload(u.key, new Uint8Array(png), { 'content-type': 'image/png' }, '?filename=cat.png');
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.id, /^file_/);
    assert.equal(r.body.contentType, 'image/png');
    assert.equal(r.body.bytes, png.length);
    assert.equal(r.body.width, 1);
    assert.equal(r.body.height, 1);
    assert.equal(r.body.filename, 'cat.png');
    assert.equal(r.body.source, 'upload');
    assert.equal(r.body.runId, null);
    assert.equal(r.headers.get('location'), `/v1/files/${r.body.id}/metadata`);
    const down = await fetch(r.body.url);
    assert.equal(down.status, 200);
    assert.deepEqual(Buffer.from(await down.arrayBuffer()), png);
    // The hosted path form reaches the same route.
    const hosted = await fetch(`${srv.url}/api/v1/files`, { method: 'POST', body: new Uint8Array(png), headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/octet-stream' } });
    assert.equal(hosted.status, 201);
  });

  test('multipart/form-data: the first file part, its name and type', async () => {
    const u = await srv.user();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngSizedBytes(3000))], { type: 'image/png' }), 'dog.png');
    const r = await upload(u.key, form);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.contentType, 'image/png');
    assert.equal(r.body.bytes, 3000);
    assert.equal(r.body.filename, 'dog.png');
    const empty = new FormData();
    empty.append('note', 'no file here');
    expectErrorBody(await upload(u.key, empty), 400, 'VALIDATION_ERROR');
  });

  test('no body and no Content-Type (the fuzzer\'s counterexample, seed 303012891): 400, not 500', async () => {
    const u = await srv.user();
    // Over a socket with no Content-Length, as the bench's fuzzer sent it: the request has no body at all.
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${srv.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${u.key}`, prefer: '1' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer.status, 400, answer.text);
    const body = JSON.parse(answer.text);
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.match(body.message, /no body/);
  });

  test('JSON: a URL fetched by the server, a data: URI and plain base64 (the hosted upload_file shapes)', async () => {
    const u = await srv.user();
    const byUrl = await upload(u.key, JSON.stringify({ url: mediaUrl }), { 'content-type': 'application/json' });
    assert.equal(byUrl.status, 201, byUrl.text);
    assert.equal(byUrl.body.bytes, 5000);
    const png = pngSizedBytes(2000);
    const byData = await upload(u.key, JSON.stringify({ data: `data:image/png;base64,${png.toString('base64')}`, filename: 'a.png' }), { 'content-type': 'application/json' });
    assert.equal(byData.status, 201, byData.text);
    assert.equal(byData.body.bytes, 2000);
    const byB64 = await upload(u.key, JSON.stringify({ base64: png.toString('base64'), contentType: 'image/png' }), { 'content-type': 'application/json' });
    assert.equal(byB64.status, 201, byB64.text);
    assert.equal(byB64.body.contentType, 'image/png');
    expectErrorBody(await upload(u.key, JSON.stringify({}), { 'content-type': 'application/json' }), 400, 'VALIDATION_ERROR');
    // The SSRF guard stays on for everything but what the operator allowed: a non-http scheme is refused.
    expectErrorBody(await upload(u.key, JSON.stringify({ url: 'file:///etc/passwd' }), { 'content-type': 'application/json' }), 400, 'VALIDATION_ERROR');
  });

  test('a lying content type is refused with 415 naming both types; bytes of no media format too; nothing is stored', async () => {
    const u = await srv.user();
    const png = pngSizedBytes(100_000);
    const lie = await upload(u.key, new Uint8Array(png), { 'content-type': 'video/mp4' });
    expectErrorBody(lie, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(lie.body.error, /claims to be video\/mp4 but its bytes are image\/png/);
    const text = await upload(u.key, 'just some text, not a picture', { 'content-type': 'image/png' });
    expectErrorBody(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const partLie = new FormData();
    partLie.append('file', new Blob([new Uint8Array(png)], { type: 'audio/wav' }), 'x.wav');
    expectErrorBody(await upload(u.key, partLie), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await upload(u.key, new Uint8Array(0), { 'content-type': 'image/png' }), 400, 'VALIDATION_ERROR');
    const list = await srv.request('GET', '/v1/files', { key: u.key });
    assert.deepEqual(list.body.items, []);
    assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM file_reservations WHERE account_id = $1`, [u.accountId])).rows[0].n, 0, 'every holding given back');
  });

  test('the storage quota: an upload that does not fit is 413 STORAGE_QUOTA_EXCEEDED; deleting makes room', async () => {
    const u = await srv.user();
    const a = await upload(u.key, new Uint8Array(pngSizedBytes(2 * 1024 * 1024)), { 'content-type': 'image/png' });
    assert.equal(a.status, 201, a.text);
    const b = await upload(u.key, new Uint8Array(pngSizedBytes(1.5 * 1024 * 1024)), { 'content-type': 'image/png' });
    expectErrorBody(b, 413, 'STORAGE_QUOTA_EXCEEDED');
    assert.equal((await srv.request('DELETE', `/v1/files/${a.body.id}`, { key: u.key })).status, 204);
    const c = await upload(u.key, new Uint8Array(pngSizedBytes(1.5 * 1024 * 1024)), { 'content-type': 'image/png' });
    assert.equal(c.status, 201, c.text);
  });

  test('direct uploads need the S3 store: 409 with the local one', async () => {
    const u = await srv.user();
    const local = srv.services.files.blobs.constructor.name === 'LocalBlobStore';
    const r = await srv.request('POST', '/v1/uploads', { key: u.key, body: { bytes: 1000 } });
    if (local) expectErrorBody(r, 409, 'CONFLICT');
    else assert.equal(r.status, 201, r.text);
  });
});

describe('the media library', () => {
  test('GET /v1/files pages by an exact cursor (no file skipped or repeated, even within one millisecond) and filters', async () => {
    const u = await srv.user();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await upload(u.key, new Uint8Array(pngSizedBytes(100 + i)), { 'content-type': 'image/png' });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.id);
    }
    // Files of one run output are written in one transaction: give three of them one created_at to the microsecond.
    await srv.services.db.query(`UPDATE files SET created_at = '2026-01-01T00:00:00.123456Z' WHERE id = ANY($1)`, [ids.slice(0, 3)]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await srv.request('GET', `/v1/files?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: u.key });
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.items.map((f: any) => f.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 7);
    assert.deepEqual(new Set(seen), new Set(ids));
    assert.deepEqual(seen.slice(0, 4), ids.slice(3).reverse(), 'newest first');

    assert.equal((await srv.request('GET', '/v1/files?kind=video', { key: u.key })).body.items.length, 0);
    assert.equal((await srv.request('GET', '/v1/files?kind=image&source=upload', { key: u.key })).body.items.length, 7);
    assert.equal((await srv.request('GET', '/v1/files?source=output', { key: u.key })).body.items.length, 0);
    const old = await srv.request('GET', '/v1/files?createdBefore=2026-01-02T00:00:00Z', { key: u.key });
    assert.deepEqual(new Set(old.body.items.map((f: any) => f.id)), new Set(ids.slice(0, 3)));
    expectErrorBody(await srv.request('GET', '/v1/files?cursor=bm9wZQ', { key: u.key }), 400, 'VALIDATION_ERROR');

    const meta = await srv.request('GET', `/v1/files/${ids[6]}/metadata`, { key: u.key });
    assert.equal(meta.status, 200);
    assert.equal(meta.body.id, ids[6]);
    assert.equal(meta.body.contentType, 'image/png');
  });

  test('tenants never see each other\'s files: 404 for metadata, download and delete; absent from the list', async () => {
    const a = await srv.user();
    const b = await srv.user();
    const r = await upload(a.key, new Uint8Array(pngSizedBytes(500)), { 'content-type': 'image/png' });
    assert.equal(r.status, 201);
    expectErrorBody(await srv.request('GET', `/v1/files/${r.body.id}/metadata`, { key: b.key }), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('GET', `/v1/files/${r.body.id}`, { key: b.key }), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('DELETE', `/v1/files/${r.body.id}`, { key: b.key }), 404, 'NOT_FOUND');
    assert.deepEqual((await srv.request('GET', '/v1/files', { key: b.key })).body.items, []);
  });
});

describe('uploads as model inputs', () => {
  test('an uploaded video is the input of trim_video by its stable URL; the output is listed with its run', { skip: hasFfmpeg ? false : 'ffmpeg is not installed' }, async () => {
    const u = await srv.user({ microcredits: 1_000_000n });
    const up = await upload(u.key, new Uint8Array(smallVideo()), { 'content-type': 'video/mp4' });
    assert.equal(up.status, 201, up.text);
    assert.equal(up.body.contentType, 'video/mp4');
    assert.equal(up.body.width, 160);
    assert.equal(up.body.height, 120);
    assert.ok(Math.abs(up.body.durationSeconds - 2) < 0.2, String(up.body.durationSeconds));
    const run = await srv.request('POST', '/v1/nodes/trim_video/run', { key: u.key, body: { input: { video_url: up.body.stableUrl, start: 0.5, end: 1.5 } } });
    assert.equal(run.status, 202, run.text);
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${run.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.error));
    const outputs = await srv.request('GET', `/v1/files?source=output&runId=${run.body.runId}`, { key: u.key });
    assert.equal(outputs.body.items.length, 1);
    assert.equal(outputs.body.items[0].contentType, 'video/mp4');
    assert.equal(outputs.body.items[0].runId, run.body.runId);
  });
});
