import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { spawnRole, type RoleProcess } from '../helpers/processes.js';
import { S3RVER_CREDENTIALS, startS3Server, type S3TestServer } from '../helpers/s3.js';
import { waitForStatus } from '../helpers/poll.js';

/**
 * Issue 28, must show: a 200 MB file uploaded through POST /v1/files grows the API process's memory by
 * less than 64 MB (its bytes stream to the store, never held whole), and is then the input of a video model;
 * the same with the S3 store, through POST /v1/files and through a presigned direct upload. The API process
 * is a spawned `atelier serve --role api` whose resident memory is read from /proc/<pid>/status; the runs
 * execute in the in-process test server's worker, on the same database and store.
 *
 * The video: ffmpeg's test pattern stored as raw (uncompressed) frames in Matroska, 640×480 at 25 fps with
 * a PCM tone, 18 s ≈ 209 MB — a real video any ffmpeg reads, written in seconds because nothing is encoded.
 */
const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const onLinux = fs.existsSync('/proc/self/status');
const skip = !hasFfmpeg ? 'ffmpeg is not installed' : !onLinux ? 'reads memory from /proc (Linux only)' : false;
const GROWTH_LIMIT = 64 * 1024 * 1024;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-upload-mem-'));
const video = path.join(tmp, 'big.mkv');

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** Samples a process's resident memory every 50 ms while `work` runs; answers the highest seen. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch { /* exited */ }
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, rssBytes(pid));
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

/** PUTs or POSTs a file (or a byte range of it) with its length, streamed from disk. */
function sendFile(url: string, method: string, headers: Record<string, string>, range?: { start: number; end: number }): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const size = range ? range.end - range.start + 1 : fs.statSync(video).size;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, 'content-length': String(size) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    fs.createReadStream(video, range).pipe(req);
  });
}

async function settle(api: RoleProcess, key: string): Promise<number> {
  // A small upload first, so the baseline includes the code paths and pools an upload warms up.
  const warm = await fetch(`${api.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, body: new Uint8Array(fs.readFileSync(video).subarray(0, 300_000)) });
  assert.equal(warm.status, 201, await warm.text());
  await new Promise((r) => setTimeout(r, 500));
  return rssBytes(api.child.pid!);
}

async function trimRun(srv: TestServer, key: string, stableUrl: string): Promise<void> {
  const run = await srv.request('POST', '/v1/nodes/trim_video/run', { key, body: { input: { video_url: stableUrl, start: 1, end: 2 } } });
  assert.equal(run.status, 202, run.text);
  const done = await waitForStatus(srv, key, `/v1/nodes/runs/${run.body.runId}`, ['COMPLETED', 'FAILED'], 300_000);
  assert.equal(done.status, 'COMPLETED', JSON.stringify(done.error));
  assert.equal(done.files[0].contentType, 'video/mp4');
}

const common = { ATELIER_UPLOAD_MAX_MB: '512', ATELIER_MEDIA_MAX_BYTES: String(300 * 1024 * 1024), ATELIER_UPLOADS_PER_MINUTE: '0', ATELIER_DISK_RESERVE_MB: '0' };

async function pair(storeEnv: Record<string, string>): Promise<{ srv: TestServer; api: RoleProcess }> {
  const srv = await startTestServer({ ...common, ...storeEnv });
  // The measured API process: same database, store and public URL, so its stable URLs are the worker's own files.
  const api = await spawnRole('api', { ...common, ...storeEnv, DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir, PUBLIC_URL: srv.url, LOG_LEVEL: 'warn' }, { readyBy: 'http', timeoutMs: 300_000 });
  return { srv, api };
}

before(() => {
  if (skip) return;
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440',
    '-t', '18', '-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', '-c:a', 'pcm_s16le', video]);
  assert.equal(r.status, 0, String(r.stderr));
  assert.ok(fs.statSync(video).size > 200 * 1000 * 1000);
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a 200 MB upload', { skip }, () => {
  test('local store: POST /v1/files grows the API process by < 64 MB; the file is trim_video\'s input', async () => {
    const { srv, api } = await pair({});
    try {
      const u = await srv.user({ microcredits: 1_000_000n });
      const base = await settle(api, u.key);
      const { result: up, peak } = await peakRss(api.child.pid!, () => sendFile(`${api.url}/v1/files?filename=big.mkv`, 'POST', { authorization: `Bearer ${u.key}`, 'content-type': 'video/x-matroska' }));
      assert.equal(up.status, 201, up.text);
      const file = JSON.parse(up.text);
      assert.equal(file.bytes, fs.statSync(video).size);
      assert.equal(file.contentType, 'video/x-matroska');
      assert.equal(file.width, 640);
      assert.ok(peak - base < GROWTH_LIMIT, `grew ${((peak - base) / 1048576).toFixed(1)} MB`);
      console.log(`# local store: API process grew ${((peak - base) / 1048576).toFixed(1)} MB uploading ${(file.bytes / 1048576).toFixed(0)} MB`);
      await trimRun(srv, u.key, file.stableUrl);
    } finally {
      await api.stop();
      await srv.close();
    }
  });

  describe('S3 store (s3rver)', () => {
    let s3: S3TestServer;
    before(async () => {
      // The in-process worker finds credentials where production does: the SDK's chain, here the environment.
      Object.assign(process.env, S3RVER_CREDENTIALS);
      s3 = await startS3Server();
    });
    after(async () => s3?.close());

    test('POST /v1/files and a presigned direct upload each grow the API process by < 64 MB; both are trim_video\'s input', async () => {
      const { srv, api } = await pair(await s3.bucketEnv('uploads-mem'));
      try {
        const u = await srv.user({ microcredits: 1_000_000n });
        const base = await settle(api, u.key);
        const streamed = await peakRss(api.child.pid!, () => sendFile(`${api.url}/v1/files`, 'POST', { authorization: `Bearer ${u.key}`, 'content-type': 'application/octet-stream' }));
        assert.equal(streamed.result.status, 201, streamed.result.text);
        assert.ok(streamed.peak - base < GROWTH_LIMIT, `grew ${((streamed.peak - base) / 1048576).toFixed(1)} MB`);
        console.log(`# S3 store, POST /v1/files: API process grew ${((streamed.peak - base) / 1048576).toFixed(1)} MB`);
        await trimRun(srv, u.key, JSON.parse(streamed.result.text).stableUrl);

        // Direct: the parts go to the bucket, Atelier only checks and registers the object.
        const size = fs.statSync(video).size;
        const started = await fetch(`${api.url}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ bytes: size, contentType: 'video/x-matroska', filename: 'direct.mkv' }) });
        const plan = await started.json() as any;
        assert.equal(started.status, 201, JSON.stringify(plan));
        const parts: Array<{ partNumber: number; etag: string }> = [];
        for (const p of plan.parts) {
          const start = (p.partNumber - 1) * plan.partBytes;
          const put = await sendFile(p.url, 'PUT', {}, { start, end: Math.min(size, start + plan.partBytes) - 1 });
          assert.equal(put.status, 200, put.text);
          parts.push({ partNumber: p.partNumber, etag: String(put.headers.etag) });
        }
        // Its own baseline: memory the streamed upload above left resident (V8 keeps freed pages a while)
        // is not the completion's growth. CI once read 65.1 MB against the first baseline for this step.
        await new Promise((r) => setTimeout(r, 500));
        const directBase = rssBytes(api.child.pid!);
        const direct = await peakRss(api.child.pid!, () => fetch(plan.completeUrl.replace(srv.url, api.url!), { method: 'POST', headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ parts }) }).then(async (r) => ({ status: r.status, body: await r.json() as any })));
        assert.equal(direct.result.status, 201, JSON.stringify(direct.result.body));
        assert.equal(direct.result.body.bytes, size);
        assert.equal(direct.result.body.contentType, 'video/x-matroska');
        assert.equal(direct.result.body.filename, 'direct.mkv');
        assert.ok(direct.peak - directBase < GROWTH_LIMIT, `grew ${((direct.peak - directBase) / 1048576).toFixed(1)} MB`);
        console.log(`# S3 store, direct upload completion: API process grew ${((direct.peak - directBase) / 1048576).toFixed(1)} MB (${((direct.peak - base) / 1048576).toFixed(1)} MB over the first baseline)`);
        await trimRun(srv, u.key, direct.result.body.stableUrl);
      } finally {
        await api.stop();
        await srv.close();
      }
    });
  });
});
