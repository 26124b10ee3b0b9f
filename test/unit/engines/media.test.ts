import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMediaFetcher, decodeDataUrl, sniffContentType } from '../../../src/engines/media.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { makeMp4Head, makePng, makeWav } from '../../helpers/providers/media.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat([...parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))), Buffer.alloc(32)]);

function riff(kind: string) {
  const b = Buffer.alloc(64);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(56, 4);
  b.write(kind, 8, 'latin1');
  return b;
}

function bmp() {
  const b = Buffer.alloc(64);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(40, 14);
  return b;
}

function oggWith(codec: string) {
  const b = Buffer.alloc(80);
  b.write('OggS', 0, 'latin1');
  b.write(codec, 28, 'latin1');
  return b;
}

test('sniffs every supported format from its magic bytes', () => {
  const cases: Array<[Buffer, string]> = [
    [makePng(), 'image/png'],
    [bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [bytes('GIF89a'), 'image/gif'],
    [bytes('GIF87a'), 'image/gif'],
    [riff('WEBP'), 'image/webp'],
    [bmp(), 'image/bmp'],
    [bytes('II', [42, 0]), 'image/tiff'],
    [bytes('MM', [0, 42]), 'image/tiff'],
    [makeWav(), 'audio/wav'],
    [bytes('ID3', [4, 0]), 'audio/mpeg'],
    [bytes([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg'],
    [bytes([0xff, 0xf3, 0x90, 0x64]), 'audio/mpeg'],
    [bytes([0xff, 0xf1, 0x50, 0x80]), 'audio/aac'],
    [oggWith('\x01vorbis'), 'audio/ogg'],
    [oggWith('OpusHead'), 'audio/ogg'],
    [oggWith('\x80theora'), 'video/ogg'],
    [bytes('fLaC'), 'audio/flac'],
    [makeMp4Head('isom'), 'video/mp4'],
    [makeMp4Head('mp42'), 'video/mp4'],
    [makeMp4Head('qt  '), 'video/quicktime'],
    [makeMp4Head('M4A '), 'audio/mp4'],
    [makeMp4Head('avif'), 'image/avif'],
    [bytes([0, 0, 0, 8], 'moov'), 'video/quicktime'],
    [bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm'), 'video/webm'],
    [bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska'), 'video/x-matroska'],
    [riff('AVI '), 'video/x-msvideo'],
    [Buffer.from('%PDF-1.7 …'), 'application/octet-stream'],
    [Buffer.from('BMW is a car'), 'application/octet-stream'],
    [Buffer.from('<html>'), 'application/octet-stream'],
    [Buffer.alloc(0), 'application/octet-stream'],
  ];
  for (const [b, type] of cases) assert.equal(sniffContentType(b), type, `${b.subarray(0, 12).toString('hex')} → ${type}`);
});

test('data: URLs, base64 and percent-encoded; the declared type is ignored', async () => {
  const fetchMedia = createMediaFetcher({ allowPrivate: false, maxBytes: 1024 * 1024, timeoutMs: 1000 });
  const png = makePng();
  // claims to be text, is a PNG: the bytes win
  const m = await fetchMedia(`data:text/plain;base64,${png.toString('base64')}`, { accept: 'image' });
  assert.equal(m.contentType, 'image/png');
  assert.deepEqual(m.bytes, png);
  const pct = await fetchMedia(`data:,${[...makeWav(0.01)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`, { accept: 'audio' });
  assert.equal(pct.contentType, 'audio/wav');
  assert.equal(decodeDataUrl('data:,caf%C3%A9%20au%20lait', 100).toString('utf8'), 'café au lait');
  assert.equal(decodeDataUrl('data:text/plain,100%', 100).toString(), '100%');
  assert.throws(() => decodeDataUrl('data:;base64,@@@', 100), /not valid base64/);
  assert.throws(() => decodeDataUrl('data:nocomma', 100), /malformed data: URL/);
});

test('accept: a mismatch is an input error naming what was expected and found', async () => {
  const fetchMedia = createMediaFetcher({ allowPrivate: false, maxBytes: 1024 * 1024, timeoutMs: 1000 });
  const wav = `data:audio/wav;base64,${makeWav().toString('base64')}`;
  const mp4 = `data:;base64,${makeMp4Head().toString('base64')}`;
  await assert.rejects(fetchMedia(wav, { accept: 'image' }), (e: Error) => e instanceof EngineInputError && /must be an image \(PNG, JPEG.*but its bytes are audio\/wav/.test(e.message));
  await assert.rejects(fetchMedia(`data:,hello`, { accept: 'video' }), /must be a video .* but its bytes are an unrecognised format/);
  assert.equal((await fetchMedia(wav, { accept: 'avmedia' })).contentType, 'audio/wav');
  assert.equal((await fetchMedia(mp4, { accept: 'avmedia' })).contentType, 'video/mp4');
  await assert.rejects(fetchMedia(`data:;base64,${makePng().toString('base64')}`, { accept: 'avmedia' }), /must be audio or video/);
  assert.equal((await fetchMedia('data:,hello', { accept: 'any' })).contentType, 'application/octet-stream');
  assert.equal((await fetchMedia('data:,hello')).bytes.toString(), 'hello');
});

test('size limit: the smaller of the operator limit and the engine request', async () => {
  const fetchMedia = createMediaFetcher({ allowPrivate: false, maxBytes: 100, timeoutMs: 1000 });
  const big = `data:;base64,${Buffer.alloc(200).toString('base64')}`;
  await assert.rejects(fetchMedia(big), (e: Error) => e instanceof EngineInputError && /larger than the limit of 100 bytes/.test(e.message));
  await assert.rejects(fetchMedia(`data:;base64,${Buffer.alloc(60).toString('base64')}`, { maxBytes: 50 }), /limit of 50 bytes/);
  // an engine cannot raise the operator's ceiling
  await assert.rejects(fetchMedia(big, { maxBytes: 10_000 }), /limit of 100 bytes/);
  await assert.rejects(fetchMedia('data:,'), /is empty/);
});

test('https only (http when private URLs are allowed); other schemes refused', async () => {
  const fetchMedia = createMediaFetcher({ allowPrivate: false, maxBytes: 1000, timeoutMs: 1000 });
  for (const u of ['http://example.com/a.png', 'ftp://example.com/a.png', 'file:///etc/passwd']) {
    await assert.rejects(fetchMedia(u), (e: Error) => e instanceof EngineInputError && /must be https:, data: or a file URL/.test(e.message));
  }
  await assert.rejects(fetchMedia('nonsense'), /not a valid URL/);
  await assert.rejects(fetchMedia('https://127.0.0.1/a.png'), (e: Error) => e instanceof EngineInputError && /refused to fetch .* loopback/.test(e.message));
  await assert.rejects(fetchMedia('https://[::ffff:169.254.169.254]/latest'), /refused to fetch .*link-local/);
});

test('own file URLs are resolved without a network request, and still sniffed', async () => {
  const png = makePng();
  const seen: string[] = [];
  const fetchMedia = createMediaFetcher({
    allowPrivate: false,
    maxBytes: 10_000,
    timeoutMs: 1000,
    resolveOwnFile: async (url) => {
      seen.push(url.href);
      return url.pathname.startsWith('/v1/files/') ? { bytes: png, contentType: 'text/html' } : undefined;
    },
  });
  const m = await fetchMedia('http://localhost:8080/v1/files/f_1?exp=1&sig=x', { accept: 'image' });
  assert.equal(m.contentType, 'image/png');
  assert.deepEqual(seen, ['http://localhost:8080/v1/files/f_1?exp=1&sig=x']);
  // not one of ours: the ordinary rules apply
  await assert.rejects(fetchMedia('http://localhost:8080/elsewhere'), /must be https:/);
});

test('an own file keeps the URL a provider may fetch it from (issue 28 hand-off); other media have none', async () => {
  const png = makePng();
  const fetchMedia = createMediaFetcher({
    allowPrivate: false,
    maxBytes: 10_000,
    timeoutMs: 1000,
    resolveOwnFile: async (url) => (url.pathname.startsWith('/v1/files/') ? { bytes: png, contentType: 'image/png', url: 'https://bucket.example/obj?X-Amz-Signature=abc' } : undefined),
  });
  const own = await fetchMedia('http://localhost:8080/v1/files/f_1', { accept: 'image' });
  assert.equal(own.url, 'https://bucket.example/obj?X-Amz-Signature=abc');
  assert.equal(own.contentType, 'image/png', 'the type is still sniffed from the bytes');
  const inline = await fetchMedia(`data:image/png;base64,${png.toString('base64')}`, { accept: 'image' });
  assert.equal(inline.url, undefined);
});

test('fetching from a loopback server: allowed only with allowPrivate; status, size, time-out map to input errors', async () => {
  const png = makePng(16, 16);
  const server = http.createServer((req, res) => {
    if (req.url === '/img') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(png);
    if (req.url === '/missing') return void res.writeHead(404).end('nope');
    if (req.url === '/big') return void res.end(Buffer.alloc(5000));
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/img' }).end();
    // /slow never answers
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const guarded = createMediaFetcher({ allowPrivate: false, maxBytes: 4000, timeoutMs: 200 });
  await assert.rejects(guarded(`${base}/img`), /must be https:/);
  // Answers that come are given 30 s (a loaded machine may take long); only /slow meets the short limit.
  const open = createMediaFetcher({ allowPrivate: true, maxBytes: 4000, timeoutMs: 30_000 });
  const impatient = createMediaFetcher({ allowPrivate: true, maxBytes: 4000, timeoutMs: 200 });
  const m = await open(`${base}/img`, { accept: 'image' });
  assert.equal(m.contentType, 'image/png');
  assert.deepEqual(m.bytes, png);
  assert.equal((await open(`${base}/redirect`, { accept: 'image' })).bytes.length, png.length);
  await assert.rejects(open(`${base}/missing`), (e: Error) => e instanceof EngineInputError && /answered HTTP 404/.test(e.message));
  await assert.rejects(open(`${base}/big`), /larger than the limit of 4000 bytes/);
  await assert.rejects(impatient(`${base}/slow`), /took longer than 0.2 s/);
  await assert.rejects(open(`${base}/img`, { accept: 'audio' }), /must be audio .* image\/png/);
  // a canceled execution stops its download with the abort reason
  const ctl = new AbortController();
  const withSignal = createMediaFetcher({ allowPrivate: true, maxBytes: 4000, timeoutMs: 5000, signal: ctl.signal });
  setTimeout(() => ctl.abort(new Error('run canceled')), 30);
  await assert.rejects(withSignal(`${base}/slow`), /run canceled/);
});
