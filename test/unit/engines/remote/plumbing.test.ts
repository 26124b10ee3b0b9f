import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { errorDetail, ProviderClient, retryAfterMs, waitBeforeRetry } from '../../../../src/engines/remote/http.js';
import { mapInput, mediaFieldKind, resolveMediaFields } from '../../../../src/engines/remote/inputs.js';
import { progressFromLogs } from '../../../../src/engines/remote/job.js';
import { findFileUrls, pick } from '../../../../src/engines/remote/outputs.js';
import { sseData } from '../../../../src/engines/remote/sse.js';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { makePng, makeWav } from '../../../helpers/providers/media.js';
import { FakeServer } from '../../../helpers/providers/server.js';

test('Retry-After: seconds and HTTP dates', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs('0.5'), 500);
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs('soon'), undefined);
  const d = retryAfterMs(new Date(Date.now() + 10_000).toUTCString())!;
  assert.ok(d > 8000 && d <= 10_000, String(d));
  assert.equal(retryAfterMs(new Date(Date.now() - 10_000).toUTCString()), 0);
});

test('error bodies of every provider shape become one readable line', () => {
  const j = (o: unknown) => Buffer.from(JSON.stringify(o));
  assert.equal(errorDetail(j({ error: { message: 'Invalid model', type: 'invalid_request_error' } })), 'Invalid model');
  assert.equal(errorDetail(j({ detail: [{ loc: ['body', 'image_size'], msg: 'bad size' }, { loc: ['body', 'prompt'], msg: 'required' }] })), 'image_size: bad size; prompt: required');
  assert.equal(errorDetail(j({ title: 'Unauthenticated', detail: 'no token', status: 401 })), 'no token');
  assert.equal(errorDetail(j({ error: { type: 'x', message: 'Prompt outputs failed validation', details: '' }, node_errors: { 3: { class_type: 'KSampler', errors: [{ message: 'Value too big', details: 'steps: 99999' }] } } })), 'Prompt outputs failed validation: node 3 (KSampler): Value too big steps: 99999');
  assert.equal(errorDetail(Buffer.from('<html><body>502</body></html>')), '');
  assert.equal(errorDetail(Buffer.from('plain words\n  here')), 'plain words here');
  assert.equal(errorDetail(Buffer.from('x'.repeat(500))).length, 301);
});

test('the client resolves paths under its base and refuses absolute URLs on other hosts', () => {
  const c = new ProviderClient({ label: 'P', baseUrl: 'https://api.example.com/v1', headers: {}, secrets: ['sekrit-key'] });
  assert.equal(c.url('predictions/1').href, 'https://api.example.com/v1/predictions/1');
  assert.equal(c.url('/predictions').href, 'https://api.example.com/v1/predictions');
  assert.equal(c.url('https://api.example.com/other').href, 'https://api.example.com/other');
  assert.throws(() => c.url('https://evil.example.net/steal'), /pointed at another host \(evil\.example\.net\); refusing to send credentials there/);
  assert.equal(c.scrub('key=sekrit-key and sekrit-key'), 'key=*** and ***');
});

test('backoff grows exponentially with jitter between attempts', async () => {
  const fake = new FakeServer(() => ({ status: 503, json: { detail: 'busy' } }));
  await fake.start();
  after(() => fake.close());
  const c = new ProviderClient({ label: 'P', baseUrl: fake.url, headers: {}, secrets: [], retry: { retries: 3, baseDelayMs: 40, maxDelayMs: 1000, requestTimeoutMs: 1000 } });
  fake.calls.length = 0;
  await assert.rejects(c.request('x', { signal: new AbortController().signal }), /P failed \(HTTP 503\): busy/);
  assert.equal(fake.calls.length, 4);
  // The waits themselves, without a clock: base·2^k, halved-to-full by the jitter, capped; Retry-After raises
  // a wait and one beyond the cap means no retry.
  const policy = { baseDelayMs: 40, maxDelayMs: 1000 };
  assert.deepEqual([0, 1, 2, 5].map((k) => waitBeforeRetry(policy, k, undefined, () => 0)), [20, 40, 80, 500]);
  assert.deepEqual([0, 1, 2, 5].map((k) => waitBeforeRetry(policy, k, undefined, () => 1)), [40, 80, 160, 1000]);
  assert.equal(waitBeforeRetry(policy, 0, 900, () => 0.5), 900);
  assert.equal(waitBeforeRetry(policy, 3, 100, () => 1), 320);
  assert.equal(waitBeforeRetry(policy, 0, 1001, () => 0), undefined);
  // a deadline shorter than the next wait stops the retries early with the last error
  fake.calls.length = 0;
  await assert.rejects(c.request('x', { signal: new AbortController().signal, deadline: Date.now() + 30 }), /HTTP 503/);
  assert.ok(fake.calls.length <= 2);
  // an abort during a wait ends it with the reason
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new Error('stop now')), 30);
  await assert.rejects(c.request('x', { signal: ctl.signal }), /stop now/);
});

test('input mapping: renames, drops, value tables, fixed params', () => {
  const out = mapInput(
    { prompt: 'p', aspect_ratio: '16:9', num_images: 2, seed: undefined, language: 'auto', keep: 0 },
    { params: { output_format: 'png', num_outputs: 9 }, inputMap: { num_images: 'num_outputs', aspect_ratio: 'image_size', keep: null }, valueMap: { aspect_ratio: { '16:9': 'landscape_16_9' }, language: { auto: null } } },
  );
  assert.deepEqual(out, { output_format: 'png', num_outputs: 2, prompt: 'p', image_size: 'landscape_16_9' });
  assert.deepEqual(mapInput({ prompt: 'Hi', system: 'Be brief', max_tokens: 5 }, { systemInPrompt: true }), { prompt: 'Be brief\n\nHi', max_tokens: 5 });
  assert.deepEqual(mapInput({ prompt: 'Hi', system: '' }, { systemInPrompt: true }), { prompt: 'Hi', system: '' });
  assert.equal(mediaFieldKind('image_url'), 'image');
  assert.equal(mediaFieldKind('start_image_url'), 'image');
  assert.equal(mediaFieldKind('image_urls'), 'image');
  assert.equal(mediaFieldKind('audio_url'), 'audio');
  assert.equal(mediaFieldKind('video_urls'), 'video');
  assert.equal(mediaFieldKind('prompt'), undefined);
});

test('media fields are fetched, type-checked and re-typed from their bytes', async () => {
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: false, maxBytes: 1e6, timeoutMs: 1000 });
  const png = makePng(2, 2);
  const out = await resolveMediaFields({ prompt: 'x', image_urls: [dataUrl(png, 'text/plain'), dataUrl(png, 'image/png')], audio_url: '' }, t.ctx);
  assert.deepEqual(out.image_urls, [dataUrl(png, 'image/png'), dataUrl(png, 'image/png')]);
  assert.equal(out.audio_url, '');
  await assert.rejects(resolveMediaFields({ image_url: dataUrl(makeWav(), 'image/png') }, t.ctx), /must be an image .* audio\/wav/);
});

test('results: file URLs found in any of the usual shapes; dotted paths', () => {
  const fal = { images: [{ url: 'https://cdn/a.png', width: 1 }, { url: 'https://cdn/b.png' }], seed: 1, prompt: 'not a url' };
  assert.deepEqual(findFileUrls(fal), ['https://cdn/a.png', 'https://cdn/b.png']);
  assert.deepEqual(findFileUrls({ video: { url: 'https://cdn/v.mp4', file_name: 'v.mp4' } }), ['https://cdn/v.mp4']);
  assert.deepEqual(findFileUrls('https://replicate.delivery/x.webp'), ['https://replicate.delivery/x.webp']);
  assert.deepEqual(findFileUrls(['https://r/1.png', 'https://r/2.png']), ['https://r/1.png', 'https://r/2.png']);
  assert.deepEqual(findFileUrls({ text: 'hello' }), []);
  assert.equal(pick({ a: { b: [1, { c: 'x' }] } }, 'a.b.1.c'), 'x');
  assert.equal(pick({ a: 1 }, 'a.b'), undefined);
});

test('progress from provider logs', () => {
  assert.equal(progressFromLogs(['loading', ' 45%|████▌     | 9/20 [00:03<00:04]']), 0.45);
  assert.equal(progressFromLogs(['step 3/12']), 0.25);
  assert.equal(progressFromLogs(['nothing useful']), undefined);
  assert.equal(progressFromLogs(['10%|', 'done 80%']), 0.8);
});

test('SSE reader: events split across chunks, CRLF, multi-line data, comments', async () => {
  const chunks = [': hello\r\n\r\ndata: {"a"', ':1}\r', '\n\r\ndata: line1\ndata: line2\n\n', 'event: x\ndata: [DONE]\n\n'];
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });
  const got: string[] = [];
  for await (const d of sseData(body)) got.push(d);
  assert.deepEqual(got, ['{"a":1}', 'line1\nline2', '[DONE]']);
});
