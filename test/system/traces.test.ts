import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import type { Services } from '../../src/services.js';
import { createServices } from '../../src/app/services.js';
import { freshDatabase } from '../helpers/db.js';
import { spawnRole, type RoleProcess } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';
import { startReceiver } from '../helpers/receiver.js';
import { startOpenAIFake, type OpenAIFake } from '../helpers/providers/openai.js';
import { formatSpanTree, spanTree, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan, type SpanNode } from '../helpers/otlp.js';

// Issue 30 item 5: one workflow run (a local text node feeding a remote LLM node) through an API process and
// a worker process, traced by the standard OTEL_* variables into a local OTLP/HTTP receiver. One trace:
// HTTP request -> run -> each node -> its engine call -> (in the worker's remote lane) the provider request; and the
// run's webhook deliveries, from a deliverer process, under the run too.
const KEY = 'sk-traces-0123456789';

let database: { url: string; drop: () => Promise<void> };
let opened: Database;
let services: Services;
let dataDir: string;
let receiver: OtlpReceiver;
let openai: OpenAIFake;
let hooks: Awaited<ReturnType<typeof startReceiver>>;
const procs: RoleProcess[] = [];
const apiLines: string[] = [];
const workerLines: string[] = [];

before(async () => {
  database = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-traces-'));
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir });
  opened = await openDatabase(config, { poolSize: 2 }); // migrates once, before either child starts
  services = await createServices(config, opened.db);
  receiver = await startOtlpReceiver();
  hooks = await startReceiver();
  openai = await startOpenAIFake({ apiKey: KEY, models: ['gpt-5.4'], answer: ['A', ' short', ' poem', '.'] });
  const env = {
    DATABASE_URL: database.url, DATA_DIR: dataDir,
    ATELIER_DEV: '1', // the sources of this checkout, whatever build/ holds
    ATELIER_ALLOW_PRIVATE_URLS: '1',
    OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${openai.url}/v1`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'atelier-traces-test',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  procs.push(...(await Promise.all([spawnRole('api', env), spawnRole('worker', env), spawnRole('deliverer', env)])));
  const keep = (into: string[]) => (chunk: Buffer) => into.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  procs[0]!.child.stdout!.on('data', keep(apiLines));
  procs[1]!.child.stdout!.on('data', keep(workerLines));
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await receiver?.close();
  await hooks?.close();
  await openai?.close();
  await opened?.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const tails = () => procs.map((p) => `--- ${p.role}\n${p.tail()}`).join('\n');

async function call(method: string, p: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(procs[0]!.url + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() as any };
}

const find = (n: SpanNode, pred: (s: ReceivedSpan) => boolean): SpanNode[] => [...(pred(n.span) ? [n] : []), ...n.children.flatMap((c) => find(c, pred))];

test('a two-node workflow run with a remote provider call is one trace: request -> run -> nodes -> engines -> provider', async () => {
  const user = await services.accounts.createUser({ email: `traces-${process.pid}@example.com`, password: 'correct horse battery' });
  await services.credits.grant(user.actingAccountId, 50_000_000n);
  const { key } = await services.keys.create(user, { label: 'traces', perMinute: 1000, perDay: 100_000 });

  const wf = await call('POST', '/v1/workflows', key, {
    name: 'Traced poem',
    nodes: [
      { id: 'req', type: 'request', data: { fields: [{ id: 'topic', name: 'topic', type: 'text' }] } },
      { id: 'prompt', type: 'text_template', data: { template: 'Write a short poem about {{ text }}.' } },
      { id: 'poem', type: 'gpt_5_4' },
      { id: 'res', type: 'response' },
    ],
    edges: [
      { source: 'req', sourceHandle: 'topic', target: 'prompt', targetHandle: 'in:text' },
      { source: 'prompt', sourceHandle: 'out:output', target: 'poem', targetHandle: 'in:prompt' },
      { source: 'poem', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
    ],
  });
  assert.equal(wf.status, 201, JSON.stringify(wf.body));
  const created = await call('POST', '/v1/runs', key, { workflowId: wf.body.id, values: { req: { topic: 'tracing' } }, webhook: { url: hooks.url('/traced') } });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runId: string = created.body.runId;
  let run: any;
  await until('the workflow run ends', async () => {
    run = (await call('GET', `/v1/runs/${runId}`, key)).body;
    return ['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status);
  }, 120_000, tails);
  assert.equal(run.status, 'COMPLETED', run.error);

  // The request's server span, from the API process; its trace id is the run row's.
  let http: ReceivedSpan | undefined;
  await until('the POST /v1/runs server span', () => (http = receiver.spans.find((s) => s.name === 'POST /v1/runs')) !== undefined, 60_000, tails);
  const row = (await opened.db.query(`SELECT trace_parent FROM runs WHERE id = $1`, [runId])).rows[0];
  assert.match(row.trace_parent, new RegExp(`^00-${http!.traceId}-[0-9a-f]{16}-01$`), 'the run row carries the trace');
  // Every span of the run has arrived once the provider request (sent from the worker), both nodes'
  // settles and a span for every webhook delivery the receiver got have.
  const ofTrace = () => receiver.spans.filter((s) => s.traceId === http!.traceId);
  await until('the run.completed webhook', () => hooks.forPath('/traced').some((r) => r.json?.type === 'run.completed'), 60_000, tails);
  await until('the node, engine, provider and webhook spans', () => {
    const spans = ofTrace();
    return spans.filter((s) => s.name === 'atelier.node' && s.attributes['atelier.node.status'] !== undefined).length === 2
      && spans.some((s) => s.kind === 3 && s.attributes['atelier.provider'] !== undefined)
      && spans.filter((s) => s.name.startsWith('webhook POST')).length === hooks.forPath('/traced').length;
  }, 60_000, () => formatSpanTree(spanTree(receiver.spans, http!.traceId)));

  const roots = spanTree(receiver.spans, http!.traceId);
  const printed = formatSpanTree(roots);
  console.log(`\nTrace ${http!.traceId} of workflow run ${runId}:\n${printed}\n`);

  assert.equal(roots.length, 1, `one root span:\n${printed}`);
  const root = roots[0]!;
  assert.equal(root.span.name, 'POST /v1/runs');
  assert.equal(root.span.kind, 2, 'the request is a server span');
  assert.equal(root.span.resource['atelier.process'], 'api');
  assert.equal(root.span.resource['service.name'], 'atelier-traces-test', 'OTEL_SERVICE_NAME is honoured');
  assert.equal(root.span.attributes['http.response.status_code'], 202);

  const runSpans = root.children.filter((c) => c.span.name === 'atelier.run');
  assert.equal(runSpans.length, 1, printed);
  const runSpan = runSpans[0]!;
  assert.equal(runSpan.span.attributes['atelier.run.id'], runId);
  assert.equal(runSpan.span.attributes['atelier.microcredits.reserved'], run.estimatedCredits);

  const nodes = runSpan.children.filter((c) => c.span.name === 'atelier.node');
  // The webhook deliveries: client spans of the deliverer process, children of the run span, one per attempt.
  const webhooks = runSpan.children.filter((c) => c.span.name.startsWith('webhook POST'));
  assert.deepEqual(webhooks.map((w) => w.span.attributes['atelier.event.type']).sort(), hooks.forPath('/traced').map((r) => r.json.type).sort(), printed);
  for (const w of webhooks) {
    assert.equal(w.span.resource['atelier.process'], 'deliverer');
    assert.equal(w.span.kind, 3);
    assert.equal(w.span.attributes['http.response.status_code'], 200);
    assert.equal(w.span.attributes['atelier.run.id'], runId);
  }
  assert.deepEqual(nodes.map((n) => n.span.attributes['atelier.node.id']), ['prompt', 'poem'], printed);
  const charged: Record<string, number> = Object.fromEntries(run.nodeRuns.map((n: any) => [n.nodeId, n.actualCredits]));
  for (const n of nodes) {
    assert.equal(n.span.resource['atelier.process'], 'worker', 'nodes run in the worker process');
    assert.equal(n.span.attributes['atelier.run.id'], runId);
    assert.equal(n.span.attributes['atelier.node.status'], 'COMPLETED');
    assert.equal(typeof n.span.attributes['atelier.microcredits.reserved'], 'number');
    assert.equal(n.span.attributes['atelier.microcredits.charged'], n.span.attributes['atelier.microcredits.reserved'], 'a completed node is charged its hold');
    const engines = n.children.filter((c) => c.span.name === 'atelier.engine');
    assert.equal(engines.length, 1, printed);
    assert.equal(engines[0]!.span.attributes['atelier.model'], n.span.attributes['atelier.model']);
  }
  assert.equal(nodes[0]!.span.attributes['atelier.model'], 'text_template');
  assert.equal(nodes[1]!.span.attributes['atelier.model'], 'gpt_5_4');
  const sumCharged = nodes.reduce((s, n) => s + Number(n.span.attributes['atelier.microcredits.charged']), 0);
  assert.equal(sumCharged, run.actualCredits, `the nodes' charges add up to the run's (${JSON.stringify(charged)})`);

  // The provider request: a client span under the LLM node's engine span, made in the worker (remote calls
  // run in the worker's remote lane, not in an engine child: execution/remoteLane.ts, issue 31).
  const llmEngine = nodes[1]!.children[0]!;
  const provider = find(llmEngine, (s) => s.kind === 3);
  assert.equal(provider.length >= 1, true, printed);
  const p = provider[0]!.span;
  assert.equal(p.resource['atelier.process'], 'worker', 'the provider request is made in the worker');
  assert.equal(p.attributes['http.request.method'], 'POST');
  assert.equal(p.name, `POST ${new URL(openai.url).host}`);
  assert.equal(llmEngine.span.attributes['atelier.route'], 'openai/gpt-5.4', 'the route: the adapter and the provider\'s model');
  assert.equal(p.attributes['http.response.status_code'], 200);
  assert.equal(p.attributes['url.full'], `${openai.url}/v1/chat/completions`);
  assert.equal(openai.callsTo('POST', /chat\/completions/).length, 1);
  assert.equal(find(nodes[0]!, (s) => s.kind === 3).length, 0, 'the local node made no provider request');
  assert.deepEqual(receiver.refused, []);

  // Logs carry the trace: the API's request line and the worker's lines while the nodes ran.
  const traced = (lines: string[]) => lines.map((l) => { try { return JSON.parse(l); } catch { return {}; } }).filter((o) => o.trace_id === http!.traceId);
  await until('the API request log line with the trace id', () => traced(apiLines).some((o) => o.msg === 'request' && o.url === '/v1/runs'), 30_000, tails);
});

test('a model run is one trace too: request -> run -> its execution in the worker -> engine, with what it reserved and was charged', async () => {
  const user = await services.accounts.createUser({ email: `traces-model-${process.pid}@example.com`, password: 'correct horse battery' });
  await services.credits.grant(user.actingAccountId, 1_000_000n);
  const { key } = await services.keys.create(user, { label: 'traces', perMinute: 1000, perDay: 100_000 });
  assert.equal((await fetch(`${procs[0]!.url}/readyz`)).status, 200); // a probe: no span (checked below, once later spans of the API arrived)
  // The caller's own trace: a traceparent header makes the request's span its child.
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const created = await call('POST', '/v1/nodes/word_count/run', key, { input: { text: 'one two three' } }, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runId: string = created.body.runId;
  let root: SpanNode | undefined;
  await until('the model run\'s trace', () => {
    const http = receiver.spans.find((s) => s.name === 'POST /v1/nodes/:nodeType/run' && s.attributes['http.response.status_code'] === 202);
    if (!http) return false;
    root = spanTree(receiver.spans, http.traceId)[0];
    return root !== undefined && find(root, (s) => s.name === 'atelier.run.execute' && s.attributes['atelier.run.status'] !== undefined).length === 1
      && find(root, (s) => s.name === 'atelier.engine').length === 1;
  }, 120_000, tails);
  const printed = formatSpanTree([root!]);
  console.log(`\nTrace of model run ${runId}:\n${printed}\n`);
  assert.equal(root!.span.traceId, callerTrace, 'the request joined the caller\'s trace');
  assert.equal(root!.span.parentSpanId, '00f067aa0ba902b7');
  assert.equal(receiver.spans.filter((s) => s.attributes['http.route'] === '/readyz').length, 0, 'no spans for probes');
  const [runSpan] = root!.children;
  assert.equal(runSpan!.span.name, 'atelier.run', printed);
  assert.equal(runSpan!.span.attributes['atelier.run.id'], runId);
  const [exec] = runSpan!.children;
  assert.equal(exec!.span.name, 'atelier.run.execute', printed);
  assert.equal(exec!.span.resource['atelier.process'], 'worker');
  assert.equal(exec!.span.attributes['atelier.model'], 'word_count');
  assert.equal(exec!.span.attributes['atelier.run.status'], 'COMPLETED');
  assert.equal(exec!.span.attributes['atelier.microcredits.charged'], runSpan!.span.attributes['atelier.microcredits.reserved']);
  assert.equal(exec!.children[0]!.span.name, 'atelier.engine');
});

test('a failed provider request marks its span, the engine call and the run as errors; the run span says nothing was charged', async () => {
  const user = await services.accounts.createUser({ email: `traces-fail-${process.pid}@example.com`, password: 'correct horse battery' });
  await services.credits.grant(user.actingAccountId, 50_000_000n);
  const { key } = await services.keys.create(user, { label: 'traces', perMinute: 1000, perDay: 100_000 });
  openai.inject('POST', /chat\/completions$/, { status: 400, json: { error: { message: 'the prompt is refused', type: 'invalid_request_error', param: null, code: null } } });
  const created = await call('POST', '/v1/nodes/gpt_5_4/run', key, { input: { prompt: 'refuse me' } });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runId: string = created.body.runId;
  let root: SpanNode | undefined;
  await until('the failed run\'s trace', () => {
    const http = receiver.spans.find((s) => s.name === 'POST /v1/nodes/:nodeType/run' && receiver.spans.some((r) => r.traceId === s.traceId && r.attributes['atelier.run.id'] === runId));
    if (!http) return false;
    root = spanTree(receiver.spans, http.traceId)[0];
    return root !== undefined && find(root, (s) => s.name === 'atelier.run.execute' && s.attributes['atelier.run.status'] !== undefined).length === 1
      && find(root, (s) => s.kind === 3).length === 1;
  }, 120_000, tails);
  const printed = formatSpanTree([root!]);
  console.log(`\nTrace of failed model run ${runId}:\n${printed}\n`);
  const [exec] = find(root!, (s) => s.name === 'atelier.run.execute');
  assert.equal(exec!.span.attributes['atelier.run.status'], 'FAILED');
  assert.equal(exec!.span.attributes['atelier.microcredits.charged'], 0);
  assert.equal(exec!.span.status.code, 2, 'the run span is an error');
  assert.match(exec!.span.status.message ?? '', /rejected the input/);
  const [engine] = find(root!, (s) => s.name === 'atelier.engine');
  assert.equal(engine!.span.status.code, 2);
  const [provider] = find(root!, (s) => s.kind === 3);
  assert.equal(provider!.span.attributes['http.response.status_code'], 400);
  assert.equal(provider!.span.attributes['error.type'], '400');
  assert.equal(provider!.span.status.code, 2);
});

test('tracing off: nothing asks for it, so no span is made and no traceparent is given', async () => {
  // The module answers without loading anything while the variables do not ask for traces.
  const t = await import('../../src/tracing/tracing.js');
  assert.equal(t.tracingWanted({}), false);
  assert.equal(t.tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(t.tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(t.tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(t.tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(t.tracingEnabled(), false);
  assert.equal(t.currentTraceparent(), null);
  assert.equal(await t.inSpan('x', {}, async (span) => span), undefined);
});
