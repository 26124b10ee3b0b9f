import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../../src/logger.js';
import * as t from '../../../src/tracing/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp.js';
import { ProviderClient } from '../../../src/engines/remote/http.js';
import { downloadOutput } from '../../../src/engines/remote/outputs.js';
import { resolveCommon } from '../../../src/engines/remote/settings.js';
import { FakeServer } from '../../helpers/providers/server.js';

// The tracing module in this process (issue 30 item 5): off until the environment asks, then spans nest
// through awaits, a traceparent round-trips, log lines carry the active span's ids, and a stop flushes.
let receiver: OtlpReceiver | undefined;
after(async () => {
  await t.stopTracing();
  await receiver?.close();
});

function capture() {
  const out = new PassThrough();
  const lines: any[] = [];
  out.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))));
  return { log: createLogger('info', { pretty: false, destination: out }), lines };
}

test('off: the wrapped work runs as it is, with no span, no traceparent and no log fields', async () => {
  assert.equal(t.tracingWanted({}), false);
  await t.startTracing('test', {});
  assert.equal(t.tracingEnabled(), false);
  assert.equal(await t.inSpan('x', { a: 1n }, async (span) => span), undefined);
  assert.equal(await t.underTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', async () => t.currentTraceparent()), null);
  const { log, lines } = capture();
  log.info('plain');
  await new Promise((r) => setImmediate(r));
  assert.equal(lines[0].trace_id, undefined);
});

test('a malformed or absent traceparent starts a new trace rather than failing', () => {
  for (const bad of [undefined, null, '', 'nonsense', '00-00000000000000000000000000000000-b7ad6b7169203331-01', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']) {
    assert.equal(t.contextOfTraceparent(bad), t.contextOfTraceparent(undefined));
  }
});

test('on: spans nest through awaits, continue a remote parent, put their ids on log lines, and reach the receiver on stop', async () => {
  receiver = await startOtlpReceiver();
  // The exporter reads its endpoint from the process environment, as in the service.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  try {
    await t.startTracing('test');
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  }
  assert.equal(t.tracingEnabled(), true);
  const { log, lines } = capture();
  const remote = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  let inner = '';
  await t.inSpan('outer', { 'atelier.microcredits.reserved': 5n }, async () => {
    await new Promise((r) => setTimeout(r, 5));
    await t.inSpan('inner', {}, async () => {
      inner = t.currentTraceparent()!;
      log.info('inside');
    });
  }, { parent: remote });
  assert.match(inner, /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  await assert.rejects(t.inSpan('failing', {}, async () => { throw new Error('boom'); }), /boom/);
  // Provider requests: each attempt a client span (here a refused one), and a download of an output file.
  const provider = new FakeServer((req) => (req.path === '/out.png' ? { body: Buffer.from('png bytes') } : { status: 422, json: { error: 'no' } }));
  await provider.start();
  try {
    const client = new ProviderClient({ label: 'Fake', baseUrl: provider.url, headers: {}, secrets: [] });
    await assert.rejects(t.inSpan('engine', {}, () => client.request('jobs?key=secret', { json: {}, signal: new AbortController().signal })), /rejected the input/);
    const got = await downloadOutput(`${provider.url}/out.png?sig=secret`, resolveCommon({ allowPrivate: true }), new AbortController().signal, 'Fake');
    assert.equal(got.toString(), 'png bytes');
  } finally {
    await provider.close();
  }
  await new Promise((r) => setImmediate(r));
  assert.equal(lines[0].trace_id, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(lines[0].span_id, inner.split('-')[2]);
  await t.stopTracing();
  const byName = new Map(receiver.spans.map((s) => [s.name, s]));
  assert.equal(byName.get('outer')!.parentSpanId, 'b7ad6b7169203331');
  assert.equal(byName.get('inner')!.parentSpanId, byName.get('outer')!.spanId);
  assert.equal(byName.get('outer')!.attributes['atelier.microcredits.reserved'], 5);
  assert.equal(byName.get('failing')!.status.code, 2);
  assert.equal(byName.get('outer')!.resource['atelier.process'], 'test');
  const host = new URL(receiver.url).hostname;
  const posts = receiver.spans.filter((s) => s.name.startsWith('POST ') && s.kind === 3);
  assert.equal(posts.length, 1);
  assert.equal(posts[0]!.parentSpanId, byName.get('engine')!.spanId);
  assert.equal(posts[0]!.attributes['http.response.status_code'], 422);
  assert.equal(posts[0]!.status.code, 2);
  assert.equal(posts[0]!.attributes['atelier.provider'], 'Fake');
  assert.doesNotMatch(String(posts[0]!.attributes['url.full']), /secret/, 'no query in the span');
  const download = receiver.spans.find((s) => s.name.startsWith('GET ') && s.kind === 3)!;
  assert.equal(download.attributes['http.response.status_code'], 200);
  assert.match(String(download.attributes['url.full']), new RegExp(`^http://${host}:\\d+/out\\.png$`));
});
