import { pngSizedBytes } from '../helpers/uploadBytes.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../web/webClient.js';
import { LocalBlobStore, NoSpaceError } from '../../src/files/blobStore.js';

/**
 * Issue 26, finding 5 (the parts that need no small volume; test/system/diskFull.test.ts fills one): editor
 * uploads were free, unlimited and could not be deleted, and a failed write left a partial .tmp blob.
 * Now the files service's one storing function enforces an upload rate and a per-account quota, files
 * can be deleted (DELETE /v1/files/{id}, DELETE /editor/files/{id}), and temporary files never outlive
 * a failed write or a crash.
 */
let srv: TestServer;
before(async () => {
  srv = await startTestServer({ ATELIER_STORAGE_QUOTA_MB: '1', ATELIER_UPLOADS_PER_MINUTE: '4', ATELIER_DISK_RESERVE_MB: '0' });
});
after(async () => srv?.close());

async function signedIn(email: string) {
  const web = new WebClient(srv.url);
  assert.equal((await web.signIn(email, 'correct horse battery')).status, 303);
  const csrf = await web.csrf('/runs');
  const cookie = () => [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const send = async (method: string, pathname: string, body?: Buffer) => {
    const res = await fetch(srv.url + pathname, {
      method, body: body ? new Uint8Array(body) : undefined,
      headers: { cookie: cookie(), 'x-csrf-token': csrf, origin: srv.url, accept: 'application/json', ...(body ? { 'content-type': 'image/png' } : {}) },
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  };
  return { upload: (bytes: number) => send('POST', '/editor/files', pngSizedBytes(bytes)), del: (id: string) => send('DELETE', `/editor/files/${id}`) };
}

describe('quota, rate and deletion', () => {
  test('past the account\'s quota an upload is 413 STORAGE_QUOTA_EXCEEDED; deleting a file makes room; another account cannot delete it', async () => {
    const u = await srv.user();
    const other = await srv.user();
    const web = await signedIn(u.email);
    const first = await web.upload(600 * 1024);
    assert.equal(first.status, 201, first.text);
    assert.match(first.body.id, /^file_/);
    const over = await web.upload(600 * 1024);
    const b = expectErrorBody(over as never, 413, 'STORAGE_QUOTA_EXCEEDED');
    assert.match(b.message, /quota/);
    assert.equal(b.quotaBytes, 1024 * 1024);

    expectErrorBody(await srv.request('DELETE', `/v1/files/${first.body.id}`, { key: other.key }), 404, 'NOT_FOUND');
    const del = await srv.request('DELETE', `/v1/files/${first.body.id}`, { key: u.key });
    assert.equal(del.status, 204, del.text);
    // Its signed link and the owner's download are gone; the room is back.
    assert.equal((await fetch(first.body.url)).status, 404);
    expectErrorBody(await srv.request('GET', `/v1/files/${first.body.id}`, { key: u.key }), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('DELETE', `/v1/files/${first.body.id}`, { key: u.key }), 404, 'NOT_FOUND');
    const again = await web.upload(600 * 1024);
    assert.equal(again.status, 201, again.text);
    // The editor deletes its own uploads too.
    assert.equal((await web.del(again.body.id)).status, 204);
    assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM files WHERE account_id = $1`, [u.accountId])).rows[0].n, 0);
  });

  test('uploads are rate-limited per account (429 with Retry-After)', async () => {
    const u = await srv.user();
    const web = await signedIn(u.email);
    for (let i = 0; i < 4; i++) assert.equal((await web.upload(100)).status, 201);
    const fifth = await web.upload(100);
    expectErrorBody(fifth as never, 429, 'RATE_LIMITED');
    assert.ok(Number(fifth.headers.get('retry-after')) > 0);
  });
});

describe('temporary files', () => {
  test('a write that fails midway leaves no temporary file; stale ones are removed when the store opens, fresh ones kept', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-blobs-'));
    try {
      const store = new LocalBlobStore(root);
      const broken = new Readable({
        read() {
          this.push(crypto.randomBytes(64 * 1024));
          if (Math.random() < 0.2) this.destroy(new Error('the source broke'));
        },
      });
      await assert.rejects(store.putStream(broken), /the source broke/);
      assert.deepEqual(fs.readdirSync(root).filter((n) => n.endsWith('.tmp')), []);

      const stale = path.join(root, '.4242.deadbeef.tmp');
      const fresh = path.join(root, '.4243.cafebabe.tmp');
      fs.writeFileSync(stale, 'left by a crash');
      fs.writeFileSync(fresh, 'being written by another process');
      const old = new Date(Date.now() - 3600_000);
      fs.utimesSync(stale, old, old);
      new LocalBlobStore(root);
      assert.ok(!fs.existsSync(stale), 'the stale temporary file is gone');
      assert.ok(fs.existsSync(fresh), 'a recent one may be another process\'s write under way');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-tiny-'));
  let mounted: string | false = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0755', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (err) {
    mounted = `cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]}): needs root`;
  }
  after(() => {
    if (!mounted) execFileSync('umount', [mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  });

  test('on a full disk a write fails with NoSpaceError and leaves nothing behind; the reserve refuses before writing', { skip: mounted }, async () => {
    const store = new LocalBlobStore(mountPoint);
    await assert.rejects(store.putStream(Readable.from([crypto.randomBytes(3 * 1024 * 1024)])), NoSpaceError);
    await assert.rejects(store.put(crypto.randomBytes(3 * 1024 * 1024)), NoSpaceError);
    assert.deepEqual(fs.readdirSync(mountPoint).filter((n) => n.endsWith('.tmp')), []);
    const reserved = new LocalBlobStore(mountPoint, { reserveBytes: 1024 * 1024 });
    await reserved.ensureRoom(512 * 1024);
    await assert.rejects(reserved.ensureRoom(1536 * 1024), NoSpaceError);
  });
});
