import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, expectErrorBody, type TestServer } from '../helpers/server.js';
import { balance, until, waitForStatus } from '../helpers/poll.js';
import { startElevenLabsFake, type ElevenLabsFake } from '../helpers/providers/elevenlabs.js';
import { dataUrl } from '../helpers/engineContext.js';
import { makeMp4Head, makeWav } from '../helpers/providers/media.js';
import { startDeepgramFake, type DeepgramFake } from '../helpers/providers/deepgram.js';
import { startWaveSpeedFake, type WaveSpeedFake } from '../helpers/providers/wavespeed.js';

/**
 * The provider adapters through a whole Atelier: hosted sub-models bound by src/catalog/hosted/bindings
 * run over REST, in engine children, against the providers' fakes; money and files are checked in the
 * ledger and the file store.
 */

const PROVIDER_VARS = ['ELEVENLABS_API_KEY', 'ELEVENLABS_BASE_URL', 'DEEPGRAM_API_KEY', 'DEEPGRAM_BASE_URL', 'XAI_API_KEY', 'XAI_BASE_URL', 'GEMINI_API_KEY', 'GEMINI_BASE_URL', 'WAVESPEED_API_KEY', 'WAVESPEED_BASE_URL', 'HEDRA_API_KEY', 'HEDRA_BASE_URL'];
const saved = Object.fromEntries(PROVIDER_VARS.map((k) => [k, process.env[k]]));
after(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

async function ledgerOf(srv: TestServer, key: string, runId: string) {
  const items = (await srv.request('GET', '/v1/credits/ledger?limit=200', { key })).body.items as Array<{ kind: string; runId: string | null; microcredits: number }>;
  return items.filter((r) => r.runId === runId).map((r) => r.kind).sort();
}
async function filesOf(srv: TestServer, accountId: string): Promise<number> {
  return Number((await srv.services.db.query('SELECT count(*) AS n FROM files WHERE account_id = $1', [accountId])).rows[0].n);
}

/** One hosted model per adapter, with the variable an operator must set for it. */
const UNCONFIGURED: Array<[nodeType: string, input: Record<string, unknown>, variable: RegExp]> = [
  ['elevenlabs_sfx', { text: 'rain on a roof' }, /set ELEVENLABS_API_KEY/],
  ['ai_transcription', { audioUrl: ['data:audio/wav;base64,AAAA'] }, /set DEEPGRAM_API_KEY/],
  ['grok_imagine_image', { prompt: 'a fox' }, /set XAI_API_KEY/],
  ['gemini_pro_tts', { text: 'hello', voice: 'Kore' }, /set GEMINI_API_KEY/],
  ['video_upscaler', { video_url: 'data:video/mp4;base64,AAAA' }, /set WAVESPEED_API_KEY/],
  ['hedra_lipsync', { image_url: 'data:image/png;base64,AAAA', audio_url: 'data:audio/wav;base64,AAAA' }, /set HEDRA_API_KEY/],
];

test('hosted models of unconfigured providers: listed unavailable with the variable to set; a run is 503 and costs nothing', async () => {
  for (const k of PROVIDER_VARS) delete process.env[k];
  const srv = await startTestServer();
  try {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const listed = (await srv.request('GET', '/v1/models', { key: u.key })).body as Array<{ nodeType: string; available: boolean }>;
    for (const [nodeType, input, variable] of UNCONFIGURED) {
      const b = expectErrorBody(await srv.request('POST', `/v1/nodes/${nodeType}/run`, { key: u.key, body: { input } }), 503, 'MODEL_UNAVAILABLE');
      assert.match(b.message, variable, nodeType);
      assert.equal(listed.find((m) => m.nodeType === nodeType)!.available, false, nodeType);
    }
    assert.deepEqual(await balance(srv, u.key), before);
  } finally {
    await srv.close();
  }
});

describe('ElevenLabs through a whole Atelier', () => {
  const KEY = 'el-e2e-key-4471aa';
  let fake: ElevenLabsFake;
  let srv: TestServer;

  before(async () => {
    fake = await startElevenLabsFake(KEY);
    process.env.ELEVENLABS_API_KEY = KEY;
    process.env.ELEVENLABS_BASE_URL = `${fake.url}/v1`;
    srv = await startTestServer();
  });
  after(async () => {
    await srv.close();
    await fake.close();
  });

  test('a sound effect runs, its MP3 is stored, and the price is captured', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const r = await srv.request('POST', '/v1/nodes/elevenlabs_sfx/run', { key: u.key, body: { input: { text: 'rain on a roof', duration: 3 } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(run.files[0].contentType, 'audio/mpeg');
    assert.deepEqual(fake.callsTo('POST', /^\/v1\/sound-generation$/).at(-1)!.json(), { text: 'rain on a roof', duration_seconds: 3, prompt_influence: 0.3, loop: false });
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['capture', 'reserve']);
    assert.equal((await balance(srv, u.key)).availableBalance, before.availableBalance - r.body.estimatedCredits);
    assert.equal(run.creditUsed, r.body.estimatedCredits);
  });

  test('a provider error fails the run with the reason and refunds it', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    fake.inject('POST', /^\/v1\/sound-generation$/, { status: 422, json: { detail: [{ loc: ['body', 'text'], msg: 'prompt was flagged', type: 'value_error' }] } });
    const r = await srv.request('POST', '/v1/nodes/elevenlabs_sfx/run', { key: u.key, body: { input: { text: 'something flagged' } } });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /ElevenLabs rejected the input \(HTTP 422\): text: prompt was flagged/);
    assert.equal(run.creditUsed, 0);
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(srv, u.key), before);
  });

  test('an answer that is not the audio it claims to be fails the run: nothing stored, nothing charged', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    fake.inject('POST', /^\/v1\/sound-generation$/, { headers: { 'content-type': 'audio/mpeg' }, body: JSON.stringify({ status: 'ok' }) });
    const r = await srv.request('POST', '/v1/nodes/elevenlabs_sfx/run', { key: u.key, body: { input: { text: 'thunder' } } });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /not audio/);
    assert.equal(await filesOf(srv, u.accountId), 0);
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(srv, u.key), before);
  });

  test('a dubbing job is polled to the end in the engine child and its file stored', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/elevenlabs_dubbing/run', { key: u.key, body: { input: { audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), targetLanguage: 'French' } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(run.files[0].contentType, 'audio/mpeg');
    assert.equal([...fake.dubs.values()].at(-1)!.target, 'fr');
    assert.equal(await filesOf(srv, u.accountId), 1);
  });

  test('canceling a run while ElevenLabs dubs deletes the dubbing there and refunds the run', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    fake.dubbingPolls = 1_000_000;
    try {
      const known = fake.dubs.size;
      const r = await srv.request('POST', '/v1/nodes/elevenlabs_dubbing/run', { key: u.key, body: { input: { audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), targetLanguage: 'Spanish' } } });
      assert.equal(r.status, 202, r.text);
      await until('the dubbing to be polled at ElevenLabs', () => fake.dubs.size > known && [...fake.dubs.values()].at(-1)!.polls >= 1);
      const c = await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
      assert.equal(c.body.status, 'CANCELED');
      const dub = [...fake.dubs.values()].at(-1)!;
      await until('the dubbing to be deleted at ElevenLabs', () => dub.deleted);
      assert.deepEqual(await balance(srv, u.key), before);
    } finally {
      fake.dubbingPolls = 2;
    }
  });
});

describe('Deepgram through a whole Atelier', () => {
  const KEY = 'dg-e2e-key-55aa01';
  let fake: DeepgramFake;
  let srv: TestServer;
  before(async () => {
    fake = await startDeepgramFake(KEY);
    process.env.DEEPGRAM_API_KEY = KEY;
    process.env.DEEPGRAM_BASE_URL = `${fake.url}/v1`;
    srv = await startTestServer();
  });
  after(async () => {
    await srv.close();
    await fake.close();
  });

  test('a transcription completes with the transcript under the hosted key and is charged', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/ai_transcription/run', { key: u.key, body: { input: { audioUrl: [dataUrl(makeWav(0.05), 'audio/wav')] } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.match(JSON.stringify(run.output), /Speaker 0: Welcome back to the show\./);
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['capture', 'reserve']);
  });

  test('Deepgram refusing the audio fails the run and refunds it', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    fake.inject('POST', /^\/v1\/listen$/, { status: 400, json: { err_code: 'Bad Request', err_msg: 'failed to process audio', request_id: 'x' } });
    const r = await srv.request('POST', '/v1/nodes/ai_transcription/run', { key: u.key, body: { input: { audioUrl: [dataUrl(makeWav(0.05), 'audio/wav')] } } });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /Deepgram rejected the input \(HTTP 400\): Bad Request: failed to process audio/);
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(srv, u.key), before);
  });
});

describe('WaveSpeed through a whole Atelier', () => {
  const KEY = 'ws-e2e-key-1f2e3d';
  let fake: WaveSpeedFake;
  let srv: TestServer;
  before(async () => {
    fake = await startWaveSpeedFake(KEY);
    process.env.WAVESPEED_API_KEY = KEY;
    process.env.WAVESPEED_BASE_URL = `${fake.url}/api/v3`;
    // the fake serves the outputs from a loopback address
    srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  });
  after(async () => {
    await srv.close();
    await fake.close();
  });

  test('an upscale is uploaded, polled to completion and its video stored and charged', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/video_upscaler/run', { key: u.key, body: { input: { video_url: dataUrl(makeMp4Head(), 'video/mp4'), target_resolution: '4k' } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(run.files[0].contentType, 'video/mp4');
    assert.equal([...fake.jobs.values()].at(-1)!.input.target_resolution, '4k');
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['capture', 'reserve']);
  });

  test('a prediction that fails at WaveSpeed fails the run and refunds it; nothing is stored', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    fake.failNext = 'video too long';
    const r = await srv.request('POST', '/v1/nodes/video_upscaler/run', { key: u.key, body: { input: { video_url: dataUrl(makeMp4Head(), 'video/mp4') } } });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /WaveSpeed prediction \w+ failed: video too long/);
    assert.deepEqual(await ledgerOf(srv, u.key, run.id), ['release', 'reserve']);
    assert.deepEqual(await balance(srv, u.key), before);
    assert.equal(await filesOf(srv, u.accountId), 0);
  });
});
