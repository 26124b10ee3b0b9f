import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { loadConfig, ConfigError } from '../../src/config.js';
import { S3BlobStore } from '../../src/files/s3BlobStore.js';
import { BlobMissingError } from '../../src/files/blobStore.js';
import { startS3Server, S3RVER_CREDENTIALS, type S3TestServer } from '../helpers/s3.js';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';

// Issue #21: the S3-compatible artifact store against a real S3 protocol server (s3rver, in this process),
// through the same code the service runs in production (createServices → createBlobStore → S3BlobStore).
const SFX = { path: '/v1/nodes/sfxr_sound_effects/run', body: { subModelId: 'sfxr-laser-shoot', input: { seed: 11 } } };

let s3: S3TestServer;
let store: S3BlobStore;
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

before(async () => {
  s3 = await startS3Server();
  // The SDK's standard credential chain reads these: the store has no credential setting of its own.
  Object.assign(process.env, S3RVER_CREDENTIALS);
  const env = await s3.bucketEnv('unit-blobs');
  store = new S3BlobStore(loadConfig(env).blobStore.s3!);
});
after(async () => {
  store?.close();
  await s3?.close();
  if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
  else process.env.AWS_ACCESS_KEY_ID = saved.id;
  if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
});

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function keys(prefix: string): Promise<string[]> {
  const r = await store.client.send(new ListObjectsV2Command({ Bucket: 'unit-blobs', Prefix: prefix }));
  return (r.Contents ?? []).map((o) => o.Key!);
}

describe('settings', () => {
  test('ATELIER_BLOB_STORE=s3 needs a bucket; bad values name the setting', () => {
    assert.throws(() => loadConfig({ ATELIER_BLOB_STORE: 's3' }), (e) => e instanceof ConfigError && /ATELIER_S3_BUCKET/.test(e.message));
    assert.throws(() => loadConfig({ ATELIER_BLOB_STORE: 'nfs' }), (e) => e instanceof ConfigError && /ATELIER_BLOB_STORE/.test(e.message));
    assert.throws(() => loadConfig({ ATELIER_BLOB_STORE: 's3', ATELIER_S3_BUCKET: 'b-1', ATELIER_S3_ENDPOINT: 'ftp://x' }), /ATELIER_S3_ENDPOINT/);
    assert.throws(() => loadConfig({ ATELIER_FILES_REDIRECT: 'presigned' }), /needs ATELIER_BLOB_STORE=s3/);
    const c = loadConfig({ ATELIER_BLOB_STORE: 's3', ATELIER_S3_BUCKET: 'art-1', ATELIER_S3_ENDPOINT: 'http://minio:9000', ATELIER_S3_FORCE_PATH_STYLE: '1', ATELIER_S3_REGION: 'eu-west-3' });
    assert.deepEqual(c.blobStore.s3, { bucket: 'art-1', endpoint: 'http://minio:9000', region: 'eu-west-3', forcePathStyle: true, prefix: '' });
    assert.equal(loadConfig({}).blobStore.kind, 'local');
  });
});

describe('S3BlobStore on s3rver', () => {
  test('put, has, whole and ranged reads, remove; a missing blob is BlobMissingError before any byte', async () => {
    const data = crypto.randomBytes(5000);
    const sha = await store.put(data);
    assert.equal(sha, crypto.createHash('sha256').update(data).digest('hex'));
    assert.equal(await store.put(data), sha, 'idempotent');
    assert.ok(await store.has(sha));
    assert.deepEqual(await keys('blobs/'), [`blobs/${sha}`]);
    assert.deepEqual(await text(await store.read(sha)), data);
    assert.deepEqual(await text(await store.read(sha, { start: 100, end: 199 })), data.subarray(100, 200));
    assert.deepEqual(await text(await store.read(sha, { start: 4999, end: 4999 })), data.subarray(4999));
    await store.remove(sha);
    assert.equal(await store.has(sha), false);
    await assert.rejects(store.read(sha), BlobMissingError);
  });

  test('a 20 MiB stream goes up in parts while it is hashed, lands under its hash, leaves no incoming object', async () => {
    const part = crypto.randomBytes(1024 * 1024);
    const hash = crypto.createHash('sha256');
    let n = 0;
    // Generated chunk by chunk: the store never sees the whole as one buffer.
    const source = Readable.from((function* () {
      for (; n < 20; n++) {
        const chunk = Buffer.concat([part, Buffer.from([n])]);
        hash.update(chunk);
        yield chunk;
      }
    })());
    const got = await store.putStream(source);
    assert.equal(got.bytes, 20 * (1024 * 1024 + 1));
    assert.equal(got.sha256, hash.digest('hex'));
    assert.ok(await store.has(got.sha256));
    assert.deepEqual(await keys('incoming/'), []);
    // A range across the boundary between the first two 8 MiB parts reads back exactly.
    const at = 8 * 1024 * 1024 - 3;
    const slice = await text(await store.read(got.sha256, { start: at, end: at + 5 }));
    const expected = Buffer.concat(Array.from({ length: 9 }, (_, i) => Buffer.concat([part, Buffer.from([i])]))).subarray(at, at + 6);
    assert.deepEqual(slice, expected);
    // The same bytes again: one object, still no leftovers.
    const again = await store.putStream(Readable.from([Buffer.from('x')]));
    assert.equal(again.bytes, 1);
    await store.remove(got.sha256);
    await store.remove(again.sha256);
  });

  test('a failing source fails the upload and leaves neither a blob nor an incoming object', async () => {
    const source = new Readable({ read() {} });
    source.push(crypto.randomBytes(1000));
    setImmediate(() => source.destroy(new Error('engine output vanished')));
    await assert.rejects(store.putStream(source), /vanished|aborted|premature/i);
    assert.deepEqual(await keys('incoming/'), []);
  });
});

describe('the service with ATELIER_BLOB_STORE=s3', () => {
  let srv: TestServer;
  let bucketEnv: Record<string, string>;
  before(async () => {
    bucketEnv = await s3.bucketEnv('service-artifacts');
    srv = await startTestServer({ ...bucketEnv, ATELIER_FILES_REDIRECT: 'presigned', ATELIER_FILES_REDIRECT_TTL_SECONDS: '120' });
  });
  after(async () => {
    await srv?.close();
  });

  async function bucketKeys(): Promise<string[]> {
    const r = await store.client.send(new ListObjectsV2Command({ Bucket: 'service-artifacts' }));
    return (r.Contents ?? []).map((o) => o.Key!);
  }

  test('outputs go to the bucket, none under DATA_DIR/files; downloads stream whole and ranged; signed links redirect to a presigned URL', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers: { prefer: 'wait=60' } });
    assert.equal(r.status, 200, r.text);
    const file = r.body.files[0];
    const sha = (await srv.services.db.query('SELECT sha256 FROM files WHERE id = $1', [file.id])).rows[0].sha256;
    assert.ok((await bucketKeys()).includes(`blobs/${sha}`));
    const local = path.join(srv.dataDir, 'files');
    assert.ok(!fs.existsSync(local) || fs.readdirSync(local, { recursive: true }).length === 0, 'no artifact bytes under DATA_DIR/files');

    // With the key: streamed by the API (S3 GET), whole and ranged (S3 Range).
    const whole = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}` } });
    assert.equal(whole.status, 200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    assert.equal(bytes.length, file.bytes);
    assert.equal(crypto.createHash('sha256').update(bytes).digest('hex'), sha);
    const part = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}`, range: 'bytes=8-23' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 8-23/${file.bytes}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(8, 24));
    const head = await fetch(`${srv.url}/v1/files/${file.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${u.key}` } });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(file.bytes));
    const bad = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}`, range: `bytes=${file.bytes + 5}-` } });
    assert.equal(bad.status, 416);

    // The signed link: a redirect to the object store, which serves the bytes (and ranges) itself.
    const signed = await fetch(file.url, { redirect: 'manual' });
    assert.equal(signed.status, 302);
    const location = signed.headers.get('location')!;
    assert.ok(location.startsWith(`${bucketEnv.ATELIER_S3_ENDPOINT}/service-artifacts/blobs/${sha}?`), location);
    assert.match(location, /X-Amz-Expires=120/);
    const direct = await fetch(location);
    assert.equal(direct.status, 200);
    assert.equal(direct.headers.get('content-type'), 'audio/wav');
    assert.deepEqual(Buffer.from(await direct.arrayBuffer()), bytes);
    const directPart = await fetch(location, { headers: { range: 'bytes=0-3' } });
    assert.equal(directPart.status, 206);
    assert.equal(Buffer.from(await directPart.arrayBuffer()).toString('latin1'), 'RIFF');
    // A bad signature is still refused by the API, never redirected.
    expectErrorBody(await srv.request('GET', `/v1/files/${file.id}?exp=${Math.floor(Date.now() / 1000) + 60}&sig=AAAA`), 401, 'UNAUTHORIZED');
  });

  test('a large output written to a file streams to the bucket (multipart) with its size from the stream', async () => {
    const u = await srv.user();
    const tmp = fs.mkdtempSync(path.join(srv.dataDir, 'out-'));
    const file = path.join(tmp, 'big.bin');
    const chunk = crypto.randomBytes(1024 * 1024);
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 17; i++) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    const rec = await srv.services.files.save(srv.services.db, u.accountId, { kind: 'file', data: Buffer.alloc(0), path: file, contentType: 'application/octet-stream', filename: 'big.bin' }, null);
    assert.equal(rec.bytes, 17 * 1024 * 1024);
    const res = await fetch(`${srv.url}/v1/files/${rec.id}`, { headers: { authorization: `Bearer ${u.key}`, range: `bytes=${16 * 1024 * 1024}-${16 * 1024 * 1024 + 9}` } });
    assert.equal(res.status, 206);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), chunk.subarray(0, 10));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('retention deletes the object; doctor reports a row whose blob is missing; its download is 404, not 500', async () => {
    const u = await srv.user();
    const runs = [];
    for (const seed of [501, 502]) {
      const r = await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, input: { seed } }, headers: { prefer: 'wait=60' } });
      assert.equal(r.status, 200, r.text);
      runs.push(r.body.files[0]);
    }
    const shaOf = async (id: string) => (await srv.services.db.query('SELECT sha256 FROM files WHERE id = $1', [id])).rows[0].sha256 as string;
    const [expiring, lost] = [runs[0], runs[1]];
    const expSha = await shaOf(expiring.id);
    const lostSha = await shaOf(lost.id);
    assert.ok((await bucketKeys()).includes(`blobs/${expSha}`));
    await srv.services.db.query(`UPDATE files SET expires_at = now() - interval '1 second' WHERE id = $1`, [expiring.id]);
    const swept = await srv.services.files.sweep();
    assert.ok(swept.blobs >= 1);
    assert.ok(!(await bucketKeys()).includes(`blobs/${expSha}`), 'retention deleted the object');

    const cliEnv = { ...bucketEnv, DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir };
    const clean = await runCli(['doctor', '--json'], cliEnv);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    // Someone deletes an object behind the service's back.
    await store.client.send(new DeleteObjectCommand({ Bucket: 'service-artifacts', Key: `blobs/${lostSha}` }));
    const dirty = await runCli(['doctor', '--json'], cliEnv);
    assert.equal(dirty.code, 1, dirty.stderr);
    const report = JSON.parse(dirty.stdout);
    const found = report.findings.filter((f: { check: string }) => f.check === 'missing_blobs');
    assert.equal(found.length, 1, dirty.stdout);
    assert.equal(found[0].details.sha256, lostSha);
    assert.deepEqual(found[0].details.file_ids, [lost.id]);
    const human = await runCli(['doctor'], cliEnv);
    assert.match(human.stdout, /FAIL +artifact blobs +1 finding/);
    expectErrorBody(await srv.request('GET', `/v1/files/${lost.id}`, { key: u.key }), 404, 'NOT_FOUND');
  });
});

describe('the local store keeps working', () => {
  test('putStream writes under the hash and a missing blob is BlobMissingError', async () => {
    const { LocalBlobStore } = await import('../../src/files/blobStore.js');
    const dir = fs.mkdtempSync(path.join(s3.directory, 'local-'));
    const local = new LocalBlobStore(dir);
    const got = await local.putStream(Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    assert.equal(got.sha256, crypto.createHash('sha256').update('hello world').digest('hex'));
    assert.equal(got.bytes, 11);
    assert.equal((await text(await local.read(got.sha256, { start: 6, end: 10 }))).toString(), 'world');
    await local.remove(got.sha256);
    await assert.rejects(local.read(got.sha256), BlobMissingError);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  });
});

describe('a blob lost from whichever store the suite uses', () => {
  test('its download is 404 with the error body, never a 500 or a cut stream, and the missing-blob check names it', async () => {
    const srv = await startTestServer();
    try {
      const u = await srv.user();
      const r = await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, input: { seed: 777 } }, headers: { prefer: 'wait=60' } });
      assert.equal(r.status, 200, r.text);
      const file = r.body.files[0];
      const sha = (await srv.services.db.query('SELECT sha256 FROM files WHERE id = $1', [file.id])).rows[0].sha256;
      await srv.services.files.blobs.remove(sha);
      expectErrorBody(await srv.request('GET', `/v1/files/${file.id}`, { key: u.key }), 404, 'NOT_FOUND');
      expectErrorBody(await srv.request('GET', `/v1/files/${file.id}`, { key: u.key, headers: { range: 'bytes=0-3' } }), 404, 'NOT_FOUND');
      const missing = await srv.services.files.missingBlobs();
      assert.deepEqual(missing.map((m) => m.files), [[file.id]]);
    } finally {
      await srv.close();
    }
  });
});
