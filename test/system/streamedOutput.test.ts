import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { siblingEnv, spawnRole, type RoleProcess } from '../helpers/processes.js';
import { startOpenAIFake, type OpenAIFake } from '../helpers/providers/openai.js';
import { readSse, type SseMessage, type SseReader } from '../helpers/sseReader.js';
import { until, waitForStatus } from '../helpers/poll.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CHANNELS } from '../../src/db/notifier.js';

/**
 * Issue 28, item 3 "Streamed outputs": a gpt_5_4 run against the local OpenAI-compatible fake streams its
 * tokens to the run's SSE stream as run.output.delta, from a worker that is another OS process than the
 * API serving the stream (the deltas cross as PostgreSQL notifications, not rows). The fake holds its last
 * token until the test has seen a delta, so the first delta provably comes before the provider's last
 * token: by order, not by time. Also through a workflow node, and across a Last-Event-ID reconnect.
 */
const ANSWER = ['Streams', ' carry', ' each', ' token', ' as', ' it', ' comes', ', ', 'ünïcode', ' 🎨', ' included', '.'];
const WHOLE = ANSWER.join('');

let fake: OpenAIFake;
let srv: TestServer;
let worker: RoleProcess;
/** The gates of the next streamed answer; a test opens them when its client has seen what it waits for. */
let gates: { first: Gate; last: Gate };

interface Gate { promise: Promise<void>; open(): void }
function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
function newGates() {
  gates = { first: gate(), last: gate() };
}

before(async () => {
  newGates();
  fake = await startOpenAIFake({ models: ['gpt-5.4'], answer: ANSWER, gapMs: 5, hold: () => ({ first: gates.first.promise, last: gates.last.promise }) });
  const providerEnv = { OPENAI_BASE_URL: `${fake.url}/v1`, ATELIER_ALLOW_PRIVATE_URLS: '1' };
  // The engines read provider settings from the environment: this process's (the API) and the worker's.
  Object.assign(process.env, providerEnv);
  srv = await startTestServer(providerEnv, { role: 'api' });
  worker = await spawnRole('worker', { ...siblingEnv(srv), ...providerEnv });
});
after(async () => {
  gates?.first.open();
  gates?.last.open();
  await worker?.stop();
  await srv?.close();
  await fake?.close();
});

const deltasOf = (ms: SseMessage[], nodeId?: string) => ms.filter((m) => m.event === 'run.output.delta' && m.data.nodeId === nodeId).map((m) => m.data);
const textOf = (deltas: Array<{ index: number; delta: string }>) => [...deltas].sort((a, b) => a.index - b.index).map((d) => d.delta).join('');

/** Waits for a message, failing with what the stream and the worker said when it does not come. */
async function see(stream: SseReader, what: string, pred: (m: SseMessage) => boolean): Promise<SseMessage> {
  await until(what, () => stream.messages.some(pred), 60_000, () => `stream so far: ${JSON.stringify(stream.messages).slice(0, 800)}\nworker: ${worker.tail()}`);
  return stream.messages.find(pred)!;
}

describe('streamed LLM output on the run event stream', () => {
  test('a gpt_5_4 run: deltas concatenate to the final output, the first before the provider sent its last token', async () => {
    newGates();
    const u = await srv.user();
    // With a webhook wanting every event type it may name: deltas are still never delivered (docs/api.md).
    const webhook = { url: 'http://127.0.0.1:9/hook' };
    const created = await srv.request('POST', '/v1/nodes/gpt_5_4/run', { key: u.key, body: { input: { prompt: 'stream please' }, webhook } });
    assert.equal(created.status, 202, created.text);
    const runId = created.body.runId;
    const stream = readSse(`${srv.url}/v1/nodes/runs/${runId}/events`, { authorization: `Bearer ${u.key}` });
    try {
      // A stored event on the stream means it is subscribed: only then may the provider start answering.
      await see(stream, 'run.started on the stream', (m) => m.event === 'run.started');
      gates.first.open();
      const first = await see(stream, 'a first delta while the provider still holds its last token', (m) => m.event === 'run.output.delta');
      assert.equal(first.id, undefined, 'a delta has no SSE id: it is not stored, Last-Event-ID stays the last stored event');
      assert.equal(first.data.runId, runId);
      assert.equal(first.data.index, 0);
      assert.ok(!WHOLE.startsWith(first.data.delta) || first.data.delta.length < WHOLE.length, 'the first delta is not the whole answer');
      gates.last.open();
      await stream.ended;
    } finally {
      gates.first.open();
      gates.last.open();
      stream.abort();
    }
    const types = stream.messages.map((m) => m.event);
    assert.equal(types.at(-1), 'run.completed', types.join(','));
    assert.ok(types.indexOf('run.output.delta') > types.indexOf('run.started'));
    assert.ok(types.lastIndexOf('run.output.delta') < types.indexOf('run.completed'), 'every delta comes before the final record');
    const deltas = deltasOf(stream.messages);
    assert.deepEqual(deltas.map((d) => d.index), deltas.map((_, i) => i), 'indexes count from 0 without gaps, in order');
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(run.output.output, WHOLE, 'the final record is unchanged: the whole text');
    assert.equal(textOf(deltas), WHOLE);
    const completed = stream.messages.find((m) => m.event === 'run.completed')!;
    assert.equal(completed.data.data.outputs.output, WHOLE);
    // Not a row per token: the run's stored events are the lifecycle ones only.
    const stored = (await srv.services.db.query('SELECT type FROM events WHERE run_id = $1 ORDER BY id', [runId])).rows.map((r) => r.type);
    assert.deepEqual(stored, ['run.started', 'run.completed']);
    const delivered = (await srv.services.db.query('SELECT e.type FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id WHERE d.run_id = $1 ORDER BY d.id', [runId])).rows.map((r) => r.type);
    assert.deepEqual(delivered, ['run.started', 'run.completed'], 'webhooks get the lifecycle events, never deltas');
  });

  test('a webhook cannot subscribe to run.output.delta (stream-only: not stored, not delivered)', async () => {
    const u = await srv.user();
    const refused = await srv.request('POST', '/v1/nodes/gpt_5_4/run', { key: u.key, body: { input: { prompt: 'x' }, webhook: { url: 'http://127.0.0.1:9/hook', events: ['run.output.delta'] } } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.code, 'VALIDATION_ERROR');
  });

  test('a reconnect with Last-Event-ID gets the stored events after it, later deltas, and the final record with the whole text', async () => {
    newGates();
    const u = await srv.user();
    const created = await srv.request('POST', '/v1/nodes/gpt_5_4/run', { key: u.key, body: { input: { prompt: 'resume' } } });
    const runId = created.body.runId;
    const headers = { authorization: `Bearer ${u.key}` };
    const firstStream = readSse(`${srv.url}/v1/nodes/runs/${runId}/events`, headers);
    let second: SseReader | undefined;
    try {
      const started = await see(firstStream, 'run.started', (m) => m.event === 'run.started');
      gates.first.open();
      await see(firstStream, 'a first delta', (m) => m.event === 'run.output.delta');
      firstStream.abort(); // the client drops while the provider holds its last token
      second = readSse(`${srv.url}/v1/nodes/runs/${runId}/events`, { ...headers, 'last-event-id': started.id! });
      // Its first bytes come after its subscriptions: the API process already listens on both channels (the
      // first stream made it), so subscribing the second stream is done before its headers are written.
      await second.opened;
      gates.last.open();
      await second.ended;
    } finally {
      gates.first.open();
      gates.last.open();
      firstStream.abort();
      second?.abort();
    }
    const types = second!.messages.map((m) => m.event);
    assert.ok(!types.includes('run.started'), `events up to Last-Event-ID are not sent again: ${types.join(',')}`);
    assert.equal(types.at(-1), 'run.completed');
    const later = deltasOf(second!.messages);
    assert.ok(later.length > 0, 'deltas made after the reconnect reach the new stream');
    assert.ok(later.every((d) => d.index > 0), 'deltas sent before the reconnect are not replayed (they are not stored)');
    assert.ok(WHOLE.endsWith(textOf(later)), 'the later deltas are the end of the text');
    const completed = second!.messages.find((m) => m.event === 'run.completed')!;
    assert.equal(completed.data.data.outputs.output, WHOLE, 'the final record carries the whole text');
  });

  test('a workflow run: the LLM node\'s deltas on the workflow run\'s stream, with its nodeId', async () => {
    newGates();
    const u = await srv.user();
    const wf = await srv.request('POST', '/v1/workflows', {
      key: u.key,
      body: {
        name: 'streamed node',
        requestFields: [{ id: 'prompt', name: 'prompt', type: 'text' }],
        nodes: [
          { id: 'req', type: 'request', position: { x: 0, y: 0 }, data: { fields: [{ id: 'prompt', name: 'prompt', type: 'text' }] } },
          { id: 'llm', type: 'gpt_5_4', position: { x: 200, y: 0 }, data: {} },
          { id: 'res', type: 'response', position: { x: 400, y: 0 }, data: {} },
        ],
        edges: [
          { id: 'e1', source: 'req', sourceHandle: 'prompt', target: 'llm', targetHandle: 'in:prompt' },
          { id: 'e2', source: 'llm', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
        ],
      },
    });
    assert.equal(wf.status, 201, wf.text);
    const run = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.body.id, values: { [wf.body.requestNodeId]: { prompt: 'a node that streams' } } } });
    assert.equal(run.status, 202, run.text);
    const runId = run.body.runId;
    const stream = readSse(`${srv.url}/v1/runs/${runId}/events`, { authorization: `Bearer ${u.key}` });
    try {
      await see(stream, 'run.started on the workflow stream', (m) => m.event === 'run.started');
      gates.first.open();
      const first = await see(stream, 'a node delta', (m) => m.event === 'run.output.delta');
      assert.equal(first.data.nodeId, 'llm');
      gates.last.open();
      await stream.ended;
    } finally {
      gates.first.open();
      gates.last.open();
      stream.abort();
    }
    const types = stream.messages.map((m) => m.event);
    assert.equal(types.at(-1), 'run.completed', types.join(','));
    assert.ok(types.lastIndexOf('run.output.delta') < types.indexOf('node.completed'), 'the node\'s deltas come before its node.completed');
    const node = stream.messages.find((m) => m.event === 'node.completed' && m.data.data.nodeId === 'llm');
    assert.equal(node?.data.data.output.output, WHOLE, 'node.completed carries the node\'s whole text');
    assert.equal(textOf(deltasOf(stream.messages, 'llm')), WHOLE);
    const view = await waitForStatus(srv, u.key, `/v1/runs/${runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(view.status, 'COMPLETED', JSON.stringify(view).slice(0, 500));
    assert.ok(JSON.stringify(view).includes(JSON.stringify(WHOLE)), 'the workflow run record has the whole text');
  });

  test('MCP get_run_status reports the tokens streamed so far while it waits (progress notifications), then the whole text', async () => {
    newGates();
    const u = await srv.user();
    const created = await srv.request('POST', '/v1/nodes/gpt_5_4/run', { key: u.key, body: { input: { prompt: 'over mcp' } } });
    const runId = created.body.runId;
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${u.key}` } } }));
    const progress: Array<{ progress: number; message?: string }> = [];
    try {
      // onprogress makes the client send a progressToken; the call waits for the run (up to 25 s by default).
      const call = client.callTool({ name: 'get_run_status', arguments: { runId } }, undefined, { onprogress: (p) => progress.push(p), timeout: 120_000 });
      // The provider starts answering once the waiting call listens for deltas (this API process is in this
      // test's process: its notifier's subscribers are the state to wait for, not a time).
      const deltaListeners = () => ((srv.services.notifier as unknown as { handlers: Map<string, Set<unknown>> }).handlers.get(CHANNELS.deltas)?.size ?? 0);
      await until('get_run_status listening for deltas', () => deltaListeners() > 0, 60_000);
      gates.first.open();
      await until('a progress notification', () => progress.length > 0, 60_000, () => worker.tail());
      assert.ok(progress[0]!.progress >= 1);
      assert.match(progress[0]!.message ?? '', /^\d+ tokens so far$/);
      assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress), 'progress only grows');
      // Without waiting, a still-running answer says how many tokens the run has made (its progress message).
      await until('the run\'s progress message', async () => /tokens/.test((await srv.request('GET', `/v1/nodes/runs/${runId}`, { key: u.key })).body.progressMessage ?? ''), 60_000);
      const now = (await client.callTool({ name: 'get_run_status', arguments: { runId, waitSeconds: 0 } })) as { content: Array<{ text: string }> };
      assert.match(now.content[0]!.text, /still running \(progress \d+%: \d+ tokens\)/);
      gates.last.open();
      const result = (await call) as unknown as { structuredContent: { status: string; output: { output: string } }; content: Array<{ text: string }> };
      assert.equal(result.structuredContent.status, 'COMPLETED', result.content[0]?.text);
      assert.equal(result.structuredContent.output.output, WHOLE);
    } finally {
      gates.first.open();
      gates.last.open();
      await client.close();
    }
  });
});
