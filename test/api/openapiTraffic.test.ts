import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/processes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makePng } from '../helpers/providers/media.js';
import { startReceiver } from '../helpers/receiver.js';
import { ROOT } from '../../scripts/openapiGenerate.js';

/**
 * Stoplight Prism, run as a validation proxy in front of a live server, checks a representative request
 * of every documented operation (and the error answers the document promises) against the served
 * document: request parameters and bodies, response statuses, headers, media types and bodies. A request
 * with any violation fails the test. Prism is independent of the service's own validators (Ajv over the
 * same TypeBox schemas), so it catches a document that says something the server does not do.
 */
let srv: TestServer;
let prism: ChildProcess;
let proxy: string;
let rx: Awaited<ReturnType<typeof startReceiver>>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-prism-'));
let prismLog = '';

before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,1' });
  rx = await startReceiver();
  const doc = (await srv.request('GET', '/v1/openapi.json')).body;
  fs.writeFileSync(path.join(tmp, 'openapi.json'), JSON.stringify(doc));
  const port = await freePort();
  proxy = `http://127.0.0.1:${port}`;
  prism = spawn(path.join(ROOT, 'node_modules/.bin/prism'), ['proxy', path.join(tmp, 'openapi.json'), srv.url, '--port', String(port), '--host', '127.0.0.1', '--errors', 'false', '--verboseLevel', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  prism.stdout!.on('data', (c) => (prismLog += c));
  prism.stderr!.on('data', (c) => (prismLog += c));
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fetch(`${proxy}/v1/credits/balance`);
      break;
    } catch {
      if (Date.now() > deadline || prism.exitCode !== null) throw new Error(`prism did not start: ${prismLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});
after(async () => {
  prism?.kill();
  await rx?.close();
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Exchange { invalid: boolean; method: string; path: string; status: number; body: any; text: string; headers: Headers; violations: Array<{ location: string[]; severity: string; message: string }> }
const seen: Exchange[] = [];

async function call(method: string, p: string, opts: { key?: string | null; body?: unknown; text?: string; headers?: Record<string, string>; raw?: boolean; invalid?: boolean } = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const url = p.startsWith('http') ? p.replace(srv.url, proxy) : proxy + p;
  const res = await fetch(url, { method, headers, body: opts.text ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = opts.raw ? '' : await res.text();
  if (opts.raw) await res.arrayBuffer();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const v = res.headers.get('sl-violations');
  const ex = { invalid: opts.invalid === true, method, path: p, status: res.status, body, text, headers: res.headers, violations: v ? JSON.parse(v) : [] };
  seen.push(ex);
  return ex;
}


test('every operation answers as the document says, through a Prism validation proxy', async () => {
  const { key } = await srv.user({ microcredits: 1_000_000_000n });
  const k = { key };

  // Discovery, credits, estimates
  await call('GET', '/v1/credits/balance', k);
  // Keys, scopes and spend limits (issue 29).
  const keyList = await call('GET', '/v1/keys', k);
  const ownKey = keyList.body.keys[0].id;
  await call('GET', `/v1/keys/${ownKey}`, k);
  assert.equal((await call('GET', '/v1/keys/key_nope', k)).status, 404);
  await call('PATCH', `/v1/keys/${ownKey}`, { ...k, body: { nodeTypes: null, budgets: { month: 10 ** 12 } } });
  await call('GET', '/v1/credits/budgets', k);
  await call('PATCH', '/v1/credits/budgets', { ...k, body: { total: 10 ** 12 } });
  await call('GET', '/v1/models', k);
  await call('GET', '/v1/models/search', k);
  await call('GET', '/v1/models/search?query=image', k);
  await call('GET', '/v1/models/search?query=no-such-thing-xyz', k);
  await call('GET', '/v1/models/catalog', k);
  for (const id of ['espeak_tts', 'sfxr-jump']) {
    await call('GET', `/v1/models/${id}/schema`, k);
    await call('GET', `/v1/models/${id}/pricing`, k);
  }
  assert.equal((await call('GET', '/v1/models/no_such_model/schema', k)).status, 404);
  const deprecated = await call('GET', '/v1/nodes/deprecated-models', k);
  await call('GET', `/v1/nodes/deprecated-models/${deprecated.body.items[0]?.nodeType ?? 'no_such_model'}/runs?limit=5`, k);
  await call('GET', '/v1/nodes/deprecated-models/no_such_model/runs', k);
  await call('POST', '/v1/nodes/estimate-credits', { ...k, body: { nodeType: 'espeak_tts', data: { text: 'Hello' } } });
  await call('POST', '/v1/nodes/estimate-credits', { ...k, body: { nodes: [{ type: 'sfxr_sound_effects', subModelId: 'sfxr-jump' }] } });
  assert.equal((await call('POST', '/v1/nodes/estimate-credits', { ...k, body: { nodeType: 'no_such_model' } })).status, 404);
  await call('POST', '/v1/workflows/estimate-credits', { ...k, body: { nodes: [{ type: 'espeak_tts', data: { text: 'Hi' } }] } });

  // Model runs, files, events
  const hook = { url: rx.url('/traffic'), events: ['run.completed'] };
  const created = await call('POST', '/v1/nodes/sfxr_sound_effects/run', { ...k, body: { subModelId: 'sfxr-jump', input: {}, webhook: hook }, headers: { 'idempotency-key': 'traffic-1' } });
  assert.equal(created.status, 202);
  await call('POST', '/v1/nodes/sfxr_sound_effects/run', { ...k, body: { subModelId: 'sfxr-jump', input: {}, webhook: hook }, headers: { 'idempotency-key': 'traffic-1' } });
  const waited = await call('POST', '/v1/nodes/espeak_tts/run', { ...k, body: { input: { text: 'wait for me' } }, headers: { prefer: 'wait=30' } });
  assert.equal(waited.status, 200);
  await until('model run', async () => (await call('GET', `/v1/nodes/runs/${created.body.runId}`, k)).body.status === 'COMPLETED', 120_000);
  await call('GET', '/v1/nodes/runs?limit=2', k);
  await call('GET', `/v1/nodes/runs/${created.body.runId}/events`, { ...k, raw: true });
  assert.equal((await call('GET', '/v1/nodes/runs/run_missing', k)).status, 404);
  const queued = await call('POST', '/v1/nodes/espeak_tts/run', { ...k, body: { input: { text: 'cancel me' } }, headers: { 'cancel-after': '5m' } });
  await call('POST', `/v1/nodes/runs/${queued.body.runId}/cancel`, k);
  // Batches (issue 29): a created batch read while queued or running, then its remaining runs canceled.
  const batch = await call('POST', '/v1/nodes/espeak_tts/batch', { ...k, body: { inputs: [{ text: 'one' }, { text: 'two' }], priority: -1 } });
  assert.equal(batch.status, 202, batch.text);
  await call('GET', `/v1/batches/${batch.body.id}`, k);
  await call('POST', `/v1/batches/${batch.body.id}/cancel`, k);
  assert.equal((await call('GET', '/v1/batches/bat_missing', k)).status, 404);
  const file = waited.body.files[0];
  await call('GET', `/v1/files/${file.id}`, { ...k, raw: true });
  await call('GET', file.url, { raw: true });
  assert.equal((await call('GET', `/v1/files/${file.id}`, { ...k, raw: true, headers: { range: 'bytes=0-99' } })).status, 206);
  assert.equal((await call('GET', `/v1/files/${file.id}`, { ...k, headers: { range: 'bytes=999999999-' } })).status, 416);
  assert.equal((await call('GET', '/v1/files/file_missing', k)).status, 404);
  assert.equal((await call('GET', `${file.url.replace(/sig=[^&]+/, 'sig=AAAA')}`)).status, 401);
  assert.equal((await call('DELETE', '/v1/files/file_missing', k)).status, 404);
  assert.equal((await call('DELETE', `/v1/files/${file.id}`, k)).status, 204);
  // Uploads and the media library (issue 28): an upload in the hosted upload_file's base64 form, its listing
  // and metadata; direct uploads answer 409 on the local store (they need the S3 one) and 404 for an unknown id.
  const uploaded = await call('POST', '/v1/files', { ...k, body: { base64: makePng(8, 8).toString('base64'), contentType: 'image/png', filename: 'dot.png' } });
  assert.equal(uploaded.status, 201);
  assert.equal((await call('POST', '/v1/files', { ...k, body: { base64: Buffer.from('not an image').toString('base64'), contentType: 'image/png' } })).status, 415);
  await call('GET', '/v1/files?limit=2', k);
  await call('GET', `/v1/files?kind=image&source=upload`, k);
  await call('GET', `/v1/files/${uploaded.body.id}/metadata`, k);
  assert.equal((await call('GET', '/v1/files/file_missing/metadata', k)).status, 404);
  assert.equal((await call('POST', '/v1/uploads', { ...k, body: { bytes: 1000, contentType: 'video/mp4' } })).status, 409);
  const completeMissing = await call('POST', '/v1/uploads/upl_missing/complete', { ...k, body: { parts: [{ partNumber: 1, etag: 'x' }] } });
  assert.ok([404, 409].includes(completeMissing.status), `complete of an unknown upload: ${completeMissing.status}`);
  const abandonMissing = await call('DELETE', '/v1/uploads/upl_missing', k);
  assert.ok([404, 409].includes(abandonMissing.status), `abandon of an unknown upload: ${abandonMissing.status}`);

  // Workflows
  const quick = await call('POST', '/v1/workflows/quick-create', { ...k, body: { name: 'Traffic', requestFields: [{ name: 'text', type: 'text' }] } });
  const wf = quick.body;
  const tts = await call('POST', `/v1/workflows/${wf.id}/nodes`, { ...k, body: { nodeType: 'espeak_tts', column: 1 } });
  await call('PATCH', `/v1/workflows/${wf.id}/nodes/${tts.body.nodeId}`, { ...k, body: { inputs: { voice: 'en' } } });
  const e1 = await call('POST', `/v1/workflows/${wf.id}/edges`, { ...k, body: { sourceNodeId: wf.requestNodeId, sourceHandle: 'text', targetNodeId: tts.body.nodeId, targetHandle: 'in:text' } });
  await call('POST', `/v1/workflows/${wf.id}/edges`, { ...k, body: { sourceNodeId: tts.body.nodeId, sourceHandle: 'out:result', targetNodeId: wf.responseNodeId, targetHandle: 'result' } });
  await call('GET', `/v1/workflows/${wf.id}`, k);
  await call('GET', '/v1/workflows?limit=5', k);
  await call('PATCH', `/v1/workflows/${wf.id}`, { ...k, body: { description: 'Through Prism' } });
  const full = await call('POST', '/v1/workflows', { ...k, body: { name: 'Full', nodes: [{ id: 'a', type: 'sfxr_sound_effects', subModelId: 'sfxr-jump' }], edges: [] } });
  assert.equal(full.status, 201, full.text);
  assert.equal((await call('POST', '/v1/workflows', { ...k, body: { name: 'Bad', nodes: [{ id: 'a', type: 'espeak_tts' }, { id: 'b', type: 'waveform_video' }], edges: [{ source: 'a', sourceHandle: 'out:nope', target: 'b', targetHandle: 'in:audio_url' }] } })).status, 400);
  const dup = await call('POST', '/v1/workflows/sound-scene/duplicate', k);
  await call('GET', '/v1/system-workflows', k);

  // Workflow runs
  const wr = await call('POST', '/v1/runs', { ...k, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: 'through prism' } }, webhook: hook } });
  assert.equal(wr.status, 202, wr.text);
  await call('POST', '/v1/runs', { ...k, body: { workflowId: 'sound-scene', values: { request: { seed: 2 } } }, headers: { prefer: 'wait=30' } });
  await until('workflow run', async () => (await call('GET', `/v1/runs/${wr.body.runId}`, k)).body.status === 'COMPLETED', 120_000);
  await call('GET', `/v1/runs/${wr.body.runId}?inDetails=false`, k);
  await call('POST', '/v1/runs/batch', { ...k, body: { ids: [wr.body.runId, 'run_missing'] } });
  await call('GET', '/v1/runs?limit=3', k);
  await call('GET', `/v1/runs/${wr.body.runId}/events`, { ...k, raw: true });
  await call('POST', `/v1/runs/${wr.body.runId}/cancel`, k);
  assert.equal((await call('GET', '/v1/runs/run_missing', k)).status, 404);
  await call('DELETE', `/v1/workflows/${wf.id}/cache`, k);
  await call('DELETE', `/v1/workflows/${wf.id}/edges/${e1.body.edgeId}`, k);
  await call('DELETE', `/v1/workflows/${wf.id}/nodes/${tts.body.nodeId}`, k);
  await call('DELETE', `/v1/workflows/${dup.body.id}`, k);
  assert.equal((await call('PATCH', '/v1/workflows/sound-scene', { ...k, body: { name: 'Mine' } })).status, 403);

  // Webhooks
  await call('GET', '/v1/webhooks/secret', k);
  await rx.waitFor(() => rx.forPath('/traffic').length >= 2, 60_000);
  await call('GET', '/v1/webhooks/deliveries?limit=5', k);
  await call('POST', `/v1/webhooks/deliveries/${rx.forPath('/traffic')[0]!.headers['webhook-id']}/replay`, k);
  await call('POST', '/v1/webhooks/secret/rotate', k);
  await call('GET', '/v1/credits/ledger?limit=5', k);

  // Errors every operation can give: bad input, an unknown key, the rate limit.
  assert.equal((await call('GET', '/v1/nodes/runs?limit=0', { ...k, invalid: true })).status, 400);
  const wrongType = await call('POST', '/v1/runs', { ...k, text: '<run/>', headers: { 'content-type': 'application/xml' }, invalid: true });
  assert.equal(wrongType.status, 415, wrongType.text);
  const limited = await srv.user({ perMinute: 1 });
  await call('GET', '/v1/credits/balance', { key: limited.key });
  const tooMany = await call('GET', '/v1/credits/balance', { key: limited.key });
  assert.equal(tooMany.status, 429);
  assert.ok(tooMany.headers.get('retry-after'));

  // Every documented operation was exercised, and nothing violated the document except where the request
  // was built to be invalid (then only the request side may be flagged).
  const doc = JSON.parse(fs.readFileSync(path.join(tmp, 'openapi.json'), 'utf8'));
  const templates = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) => Object.keys(item).map((m) => ({ m: m.toUpperCase(), re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`), key: `${m.toUpperCase()} ${p}` })));
  const covered = new Set(seen.map((s) => templates.find((t) => t.m === s.method && t.re.test(new URL(s.path, srv.url).pathname))?.key).filter(Boolean));
  assert.deepEqual(templates.map((t) => t.key).filter((k) => !covered.has(k)), [], 'operations not exercised');
  const problems = seen.flatMap((s) => s.violations
    .filter((v) => !(s.invalid && v.location[0] === 'request'))
    .map((v) => `${s.method} ${s.path} → ${s.status}: ${v.location.join('.')} ${v.message}`));
  assert.deepEqual(problems, [], prismLog.slice(-2000));
  assert.ok(seen.length >= 60, `${seen.length} exchanges`);
  // Prism is really checking: the request built to break the document is flagged.
  assert.ok(seen.find((s) => s.path === '/v1/nodes/runs?limit=0')!.violations.some((v) => v.location.join('.') === 'request.query.limit'), 'prism reports violations');
});
