import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { balance, until, waitForStatus } from '../helpers/poll.js';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';
import { ffmpegInfo } from '../../src/engines/local/ffmpeg.js';

/**
 * Issue 26, findings 6 and 10: what one run may take from the machine. A 71 KB audio file wrote 1.84 GB to
 * disk and 1.9 GB into memory, for free (no caps on audio inputs, and ATELIER_ENGINE_MEMORY_MB capped only
 * the V8 heap); after kill -9 of an engine child its ffmpeg ran on, orphaned.
 */
let srv: TestServer;
let dir: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-resources-'));
  srv = await startTestServer({ ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE, ATELIER_ENGINE_RESIDENT_MB: '400', ATELIER_ALLOW_PRIVATE_URLS: '1' });
});
after(async () => {
  await srv.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const running = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
};

/** Silence, made small by FLAC whatever its decoded size. */
function silentFlac(name: string, seconds: number, rate: number, layout: string): string {
  const file = path.join(dir, name);
  execFileSync(ffmpegInfo()!.ffmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', `anullsrc=r=${rate}:cl=${layout}`, '-t', String(seconds), '-c:a', 'flac', file]);
  return `data:audio/flac;base64,${fs.readFileSync(file).toString('base64')}`;
}

async function failedFree(key: string, nodeType: string, input: Record<string, unknown>): Promise<any> {
  const before = await balance(srv, key);
  const r = await srv.request('POST', `/v1/nodes/${nodeType}/run`, { key, body: { input } });
  assert.equal(r.status, 202, r.text);
  const done = await waitForStatus(srv, key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 180_000);
  assert.equal(done.status, 'FAILED', JSON.stringify(done).slice(0, 400));
  assert.equal(done.creditUsed, 0);
  assert.deepEqual(await balance(srv, key), before, 'refunded');
  return done;
}

describe('audio inputs are capped before they are decoded', () => {
  test('a 10-minute 192 kHz 8-channel FLAC of silence to trim_audio: 400 INPUT_TOO_LARGE at create inline, a failed free run behind a URL', async () => {
    const u = await srv.user();
    const audio = silentFlac('big.flac', 600, 192_000, '7.1');
    assert.ok(audio.length < 2_000_000, `the FLAC is ${audio.length} bytes as a data URL`);
    const before = await balance(srv, u.key);
    const r = await srv.request('POST', '/v1/nodes/trim_audio/run', { key: u.key, body: { input: { audio_url: audio } } });
    const body = expectErrorBody(r, 400, 'INPUT_TOO_LARGE');
    assert.equal(body.details[0].path, 'body.input.audio_url');
    assert.match(body.message, /sample rate of 192000 Hz; the limit is 96000 Hz/);
    assert.deepEqual(await balance(srv, u.key), before);

    // Behind a URL the header is read by the engine, before anything is decoded or written.
    const bytes = fs.readFileSync(path.join(dir, 'big.flac'));
    const host = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/flac' }).end(bytes));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/big.flac`;
      const done = await failedFree(u.key, 'trim_audio', { audio_url: url });
      assert.equal(done.errorCode, 'INPUT_TOO_LARGE', done.error);
      assert.match(done.error, /sample rate of 192000 Hz; the limit is 96000 Hz/);
    } finally {
      host.close();
    }
  });

  test('a result that would pass the output limit is refused before it is written: trim of 10 minutes of 96 kHz 8-channel audio', async () => {
    const u = await srv.user();
    const done = await failedFree(u.key, 'trim_audio', { audio_url: silentFlac('wide.flac', 600, 96_000, '7.1') });
    assert.equal(done.errorCode, 'INPUT_TOO_LARGE', done.error);
    assert.match(done.error, /the result would be \d+ bytes of audio, over this server's limit/);
  });

  test('change_speed at 0.25 is checked at four times the input length', async () => {
    const u = await srv.user();
    // 100 s of 48 kHz stereo is 19 MB as WAV, within the 64 MiB limit; slowed to 400 s it is 77 MB, over it.
    const done = await failedFree(u.key, 'change_speed', { audio_url: silentFlac('slow.flac', 100, 48_000, 'stereo'), speed: 0.25 });
    assert.equal(done.errorCode, 'INPUT_TOO_LARGE', done.error);
    assert.match(done.error, /the result would be \d+ bytes of audio/);
  });

  test('audio within the caps still runs', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/trim_audio/run', { key: u.key, body: { input: { audio_url: silentFlac('ok.flac', 20, 48_000, 'stereo'), start: 1, duration: 2 } } });
    assert.equal(r.status, 202, r.text);
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.status, 'COMPLETED', done.error);
  });
});

describe('an engine child\'s resident memory is capped, not only its heap', () => {
  test('native memory past ATELIER_ENGINE_RESIDENT_MB kills the child: FAILED ENGINE_OUT_OF_MEMORY, refunded, the service answers', async () => {
    const u = await srv.user();
    const done = await failedFree(u.key, 'test_hoard', { mb: 1200 });
    assert.equal(done.errorCode, 'ENGINE_OUT_OF_MEMORY', done.error);
    assert.match(done.error, /over this server's limit of 400 MiB per engine process \(ATELIER_ENGINE_RESIDENT_MB\)/);
    assert.equal((await srv.request('GET', '/healthz')).status, 200);
    // Below the cap the same engine completes.
    const r = await srv.request('POST', '/v1/nodes/test_hoard/run', { key: u.key, body: { input: { mb: 50 } } });
    const ok = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(ok.status, 'COMPLETED', ok.error);
  });
});

describe('an engine child takes the programs it started with it', () => {
  test('kill -9 of an engine child ends its ffmpeg at once', async () => {
    const u = await srv.user();
    const started = path.join(dir, 'spawn-started');
    const r = await srv.request('POST', '/v1/nodes/test_spawn/run', { key: u.key, body: { input: { started_file: started } } });
    assert.equal(r.status, 202, r.text);
    await until('the engine to start its program', () => fs.existsSync(started) && fs.readFileSync(started, 'utf8').includes(' '), 90_000);
    const [childPid, programPid] = fs.readFileSync(started, 'utf8').split(' ').map(Number) as [number, number];
    assert.ok(running(programPid));
    process.kill(childPid, 'SIGKILL');
    // The program was started to run for ten minutes: only its child's end can stop it this soon.
    await until('the orphaned ffmpeg to end', () => !running(programPid), 60_000);
    await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
  });
});
