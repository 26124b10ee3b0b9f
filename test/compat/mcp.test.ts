import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The seven jobs an MCP client of the hosted Galaxy.ai / Magica service does (issue 25, "Found 8"),
// written from /work/shared/spec/hosted-compat.md "MCP": the hosted tool names and arguments, results read
// from structuredContent (runId, status, assets[].url) and from the text ("Run ID: …"). Models that really
// run here: sfxr, espeak_tts, crop_image.

let srv: TestServer;
let key: string;
let accountId: string;
let client: Client;

const HOSTED_TOOLS = [
  'get_balance', 'get_pricing',
  'search_tools', 'get_model_schema', 'execute_tool', 'get_run_status', 'upload_file', 'get_generations',
  'list_workflows', 'get_workflow', 'create_workflow', 'update_workflow', 'delete_workflow', 'list_node_types',
  'add_node', 'update_node', 'connect_nodes', 'disconnect_nodes', 'delete_node',
  'start_run', 'list_runs', 'list_system_workflows', 'run_system_workflow',
];

interface ToolResult { isError: boolean; text: string; sc: any }

async function call(name: string, args: Record<string, unknown> = {}, c = client): Promise<ToolResult> {
  const res = await c.callTool({ name, arguments: args });
  const text = (res.content as Array<{ type: string; text: string }>).map((x) => x.text).join('\n');
  return { isError: res.isError === true, text, sc: res.structuredContent };
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const r = await call(name, args);
  assert.equal(r.isError, false, `${name}: ${r.text.slice(0, 500)}`);
  return r;
}

/** get_run_status until the run ends, as a hosted client loops (the tool itself waits up to its bound). */
async function untilDone(runId: string, runType: 'model' | 'workflow'): Promise<ToolResult> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const r = await ok('get_run_status', { runId, runType });
    assert.equal(r.sc.runId, runId);
    assert.match(r.text, new RegExp(`Run ID: ${runId}`));
    if (['COMPLETED', 'FAILED', 'CANCELED'].includes(r.sc.status)) return r;
    assert.match(r.text, /still running/);
    assert.ok(Date.now() < deadline, `run ${runId} did not end: ${r.text}`);
  }
}

/** An RGB PNG of w×h pixels (a gradient), for uploads. */
function png(w: number, h: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const rows = Buffer.concat(Array.from({ length: h }, (_, y) => Buffer.from([0, ...Array.from({ length: w }, (_, x) => [x * 20, y * 20, 128]).flat()])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

before(async () => {
  srv = await startTestServer();
  const u = await srv.user();
  key = u.key;
  accountId = u.accountId;
  client = new Client({ name: 'hosted-style-client', version: '1.0.0' });
  // The hosted base path, as hosted clients are configured by default; the raw JSON-RPC test below also
  // takes the bare /mcp form.
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
});
after(async () => {
  await client?.close();
  await srv.close();
});

describe('MCP: the hosted tool set, as a hosted client uses it', () => {
  test('lists the 23 hosted tools, each described with an object input schema', async () => {
    const { tools } = await client.listTools();
    const names = new Set(tools.map((t) => t.name));
    for (const name of HOSTED_TOOLS) assert.ok(names.has(name), `missing ${name}`);
    for (const t of tools) {
      assert.ok(t.description && t.description.length > 20, t.name);
      assert.equal(t.inputSchema.type, 'object', t.name);
    }
    const exec = tools.find((t) => t.name === 'execute_tool')!;
    assert.deepEqual(exec.inputSchema.required, ['tool_name']);
    const status = tools.find((t) => t.name === 'get_run_status')!;
    assert.deepEqual((status.inputSchema.properties as any).runType.enum, ['model', 'workflow']);
  });

  test('raw JSON-RPC with the hosted Accept header: tools/list and tools/call without initialize', async () => {
    for (const mcp of ['/mcp', '/api/mcp']) {
      const headers = { accept: 'application/json, text/event-stream' };
      const list = await srv.request('POST', mcp, { key, headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.equal(list.status, 200, list.text.slice(0, 300));
      assert.ok(list.body.result.tools.some((t: any) => t.name === 'execute_tool'));
      const bal = await srv.request('POST', mcp, { key, headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_balance', arguments: {} } } });
      assert.equal(bal.status, 200, bal.text.slice(0, 300));
      assert.equal(bal.body.id, 2);
      assert.equal(typeof bal.body.result.structuredContent.availableBalance, 'number');
      // The answer is JSON whatever else the client accepts: Accept of JSON only, any type, or none at all.
      for (const accept of ['application/json', '*/*', undefined]) {
        const r = await srv.request('POST', mcp, { key, headers: accept ? { accept } : {}, body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_balance', arguments: {} } } });
        assert.equal(r.status, 200, `${accept}: ${r.text.slice(0, 200)}`);
        assert.equal(typeof r.body.result.structuredContent.availableBalance, 'number');
      }
      const sseOnly = await srv.request('POST', mcp, { key, headers: { accept: 'text/event-stream' }, body: { jsonrpc: '2.0', id: 10, method: 'tools/list' } });
      assert.equal(sseOnly.status, 406);
      // A tool error is a result with isError, never an HTTP or JSON-RPC failure.
      const bad = await srv.request('POST', mcp, { key, headers, body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_run_status', arguments: { runId: 'run_nope', runType: 'model' } } } });
      assert.equal(bad.status, 200);
      assert.equal(bad.body.result.isError, true);
      assert.match(bad.body.result.content[0].text, /NOT_FOUND/);
    }
  });

  test('job 1 — balance', async () => {
    const r = await ok('get_balance');
    assert.equal(r.sc.availableBalance, 10_000_000);
    assert.equal(r.sc.reservedMicrocredits, 0);
    assert.deepEqual(r.sc, JSON.parse(r.text));
  });

  test('job 2 — search, schema and pricing', async () => {
    const found = await ok('search_tools', { category: 'sound-effects' });
    assert.ok(found.sc.modelIds.includes('sfxr-jump'), found.text);
    assert.ok(found.sc.models.every((m: any) => typeof m.modelId === 'string' && typeof m.category === 'string'));
    assert.match(found.text, /sfxr-jump/);
    const none = await ok('search_tools', { category: 'no-such-category-xyz' });
    assert.deepEqual(none.sc.modelIds, []);
    const schema = await ok('get_model_schema', { modelId: 'espeak_tts' });
    assert.ok(schema.sc.fields.some((f: any) => f.name === 'text'));
    const price = await ok('get_pricing', { modelId: 'espeak_tts', input: { text: 'Hello there.' } });
    assert.equal(price.sc.modelId, 'espeak_tts');
    assert.equal(typeof price.sc.estimateMicrocredits, 'number');
    assert.ok(price.sc.estimateMicrocredits > 0);
    const plain = await ok('get_pricing', { modelId: 'sfxr-jump' });
    assert.ok(plain.sc.estimateMicrocredits > 0);
    const unknown = await call('get_pricing', { modelId: 'no_such_model' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /MODEL_NOT_FOUND/);
  });

  test('job 3 — generate, then get_run_status until done, reading structuredContent.assets[].url', async () => {
    const started = await ok('execute_tool', { tool_name: 'generate', input: { modelId: 'espeak_tts', text: 'Hello from the hosted client.' } });
    assert.match(started.sc.runId, /^run_/);
    assert.match(started.text, new RegExp(`Run ID: ${started.sc.runId}`));
    const done = await untilDone(started.sc.runId, 'model');
    assert.equal(done.sc.status, 'COMPLETED', done.text);
    assert.ok(done.sc.assets.length >= 1);
    const url = done.sc.assets[0].url as string;
    assert.ok(done.text.includes(url), 'the text names the asset URL');
    assert.match(done.text, /Status: COMPLETED/);
    const audio = await fetch(url);
    assert.equal(audio.status, 200);
    assert.match(audio.headers.get('content-type') ?? '', /^audio\//);
    assert.ok(done.sc.creditUsed > 0);
    // A sub-model id as modelId, and the nodeType of a multi-mode model (its default sub-model).
    for (const modelId of ['sfxr-jump', 'sfxr_sound_effects']) {
      const s = await ok('execute_tool', { tool_name: 'generate', input: { modelId, seed: 4 } });
      assert.equal((await untilDone(s.sc.runId, 'model')).sc.status, 'COMPLETED');
    }
    // Bad input is a tool error naming the field, and costs nothing.
    const before = (await ok('get_balance')).sc.availableBalance;
    const bad = await call('execute_tool', { tool_name: 'generate', input: { modelId: 'espeak_tts', text: 42 } });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /VALIDATION_ERROR/);
    assert.match(bad.text, /text/);
    const noTool = await call('execute_tool', { tool_name: 'no_such_utility', input: {} });
    assert.equal(noTool.isError, true);
    assert.match(noTool.text, /tool_name "no_such_utility"/);
    const noModel = await call('execute_tool', { tool_name: 'generate', input: { text: 'x' } });
    assert.equal(noModel.isError, true);
    assert.match(noModel.text, /modelId/);
    assert.equal((await ok('get_balance')).sc.availableBalance, before);
  });

  test('job 4 and 5 — upload_file, then the URL as a utility\'s input through execute_tool', async () => {
    const image = png(8, 6);
    const uploaded = await ok('upload_file', { data: `data:image/png;base64,${image.toString('base64')}`, filename: 'grad.png' });
    assert.match(uploaded.sc.id, /^file_/);
    assert.equal(uploaded.sc.contentType, 'image/png');
    assert.equal(uploaded.sc.bytes, image.length);
    assert.equal(uploaded.sc.width, 8);
    assert.equal(uploaded.sc.height, 6);
    assert.ok(uploaded.text.includes(uploaded.sc.url));
    // The stable URL downloads with the key; the signed one without.
    const withKey = await fetch(uploaded.sc.url, { headers: { authorization: `Bearer ${key}` } });
    assert.deepEqual(Buffer.from(await withKey.arrayBuffer()), image);
    assert.equal((await fetch(uploaded.sc.signedUrl)).status, 200);
    // Plain base64 and this service's own file URL work too.
    const b64 = await ok('upload_file', { base64: image.toString('base64') });
    assert.equal(b64.sc.bytes, image.length);
    const again = await ok('upload_file', { url: uploaded.sc.signedUrl });
    assert.equal(again.sc.bytes, image.length);
    // A file larger than the API's ordinary 1 MiB body limit, as base64 inside the JSON-RPC body.
    const rate = 16_000;
    const samples = rate * 45; // 45 s of 16-bit mono silence: 1.44 MB
    const wav = Buffer.alloc(44 + samples * 2);
    wav.write('RIFF', 0, 'latin1');
    wav.writeUInt32LE(36 + samples * 2, 4);
    wav.write('WAVEfmt ', 8, 'latin1');
    wav.writeUInt32LE(16, 16);
    wav.writeUInt16LE(1, 20);
    wav.writeUInt16LE(1, 22);
    wav.writeUInt32LE(rate, 24);
    wav.writeUInt32LE(rate * 2, 28);
    wav.writeUInt16LE(2, 32);
    wav.writeUInt16LE(16, 34);
    wav.write('data', 36, 'latin1');
    wav.writeUInt32LE(samples * 2, 40);
    const big = await ok('upload_file', { data: wav.toString('base64'), filename: 'quiet.wav' });
    assert.equal(big.sc.contentType, 'audio/wav');
    assert.equal(big.sc.bytes, wav.length);
    assert.equal(big.sc.durationSeconds, 45);
    // What is not media is refused, and an address on this machine is not fetched (outbound guard).
    const text = await call('upload_file', { base64: Buffer.from('just some text').toString('base64') });
    assert.equal(text.isError, true);
    assert.match(text.text, /UNSUPPORTED_MEDIA_TYPE/); // the same answer as POST /v1/files (issue 28)
    const local = await call('upload_file', { url: 'https://127.0.0.1:9/secret.png' });
    assert.equal(local.isError, true);
    assert.match(local.text, /refused|private|not allowed/i);

    // A utility by name (tool_name crop_image), its inputs read from its schema as a client would.
    const schema = await ok('get_model_schema', { modelId: 'crop_image' });
    const names = new Set(schema.sc.fields.map((f: any) => f.name));
    const crop: Record<string, unknown> = { image_url: uploaded.sc.url };
    if (names.has('width_percent')) Object.assign(crop, { width_percent: 50, height_percent: 50 });
    else Object.assign(crop, { left: 0, top: 0, width: 4, height: 3 });
    const started = await ok('execute_tool', { tool_name: 'crop_image', input: crop });
    const done = await untilDone(started.sc.runId, 'model');
    assert.equal(done.sc.status, 'COMPLETED', done.text);
    assert.equal(done.sc.assets[0].contentType, 'image/png');
    assert.equal(done.sc.assets[0].width, 4);
    assert.equal(done.sc.assets[0].height, 3);
  });

  test('job 6 — build a workflow with the builder tools, then start_run in two steps', async () => {
    const created = await ok('create_workflow', { name: 'Spoken greeting', requestFields: [{ name: 'words', type: 'text', value: 'Good morning.' }] });
    const wfId = created.sc.id as string;
    const requestNodeId = created.sc.requestNodeId as string;
    const responseNodeId = created.sc.responseNodeId as string;
    const tts = await ok('add_node', { workflowId: wfId, nodeType: 'espeak_tts', inputs: { speed: 160 } });
    const ttsId = tts.sc.nodeId as string;
    assert.ok(tts.sc.inputPorts.includes('in:text'));
    // A node added and removed again, and an edge connected and disconnected again.
    const extra = await ok('add_node', { workflowId: wfId, nodeType: 'sfxr-jump' });
    assert.equal(extra.sc.subModelId, 'sfxr-jump');
    const edge = await ok('connect_nodes', { workflowId: wfId, sourceNodeId: extra.sc.nodeId, sourceHandle: extra.sc.outputPorts[0], targetNodeId: responseNodeId, targetHandle: 'result' });
    await ok('disconnect_nodes', { workflowId: wfId, edgeId: edge.sc.edgeId });
    await ok('delete_node', { workflowId: wfId, nodeId: extra.sc.nodeId });
    await ok('connect_nodes', { workflowId: wfId, sourceNodeId: requestNodeId, sourceHandle: created.sc.requestFields[0].id, targetNodeId: ttsId, targetHandle: 'in:text' });
    await ok('connect_nodes', { workflowId: wfId, sourceNodeId: ttsId, sourceHandle: tts.sc.outputPorts[0], targetNodeId: responseNodeId, targetHandle: 'result' });
    const updated = await ok('update_node', { workflowId: wfId, nodeId: ttsId, inputs: { speed: 170 } });
    assert.equal(updated.sc.data.speed, 170);
    const renamed = await ok('update_workflow', { workflowId: wfId, description: 'Says the words.' });
    assert.equal(renamed.sc.description, 'Says the words.');
    const got = await ok('get_workflow', { workflowId: wfId });
    assert.equal(got.sc.nodes.length, 3);
    assert.equal(got.sc.edges.length, 2);
    const listed = await ok('list_workflows', { search: 'Spoken' });
    assert.ok(listed.sc.workflows.some((w: any) => w.id === wfId));
    // A bad wire is a tool error naming the problem.
    const badEdge = await call('connect_nodes', { workflowId: wfId, sourceNodeId: ttsId, sourceHandle: 'out:nope', targetNodeId: responseNodeId, targetHandle: 'result' });
    assert.equal(badEdge.isError, true);
    assert.match(badEdge.text, /INVALID_GRAPH/);

    // Step 1: by name, no values: the Request fields, and nothing started.
    const runsBefore = (await srv.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1 AND kind = 'workflow'`, [accountId])).rows[0].n;
    const fields = await ok('start_run', { workflow: 'Spoken greeting' });
    assert.equal(fields.sc.started, false);
    assert.equal(fields.sc.workflowId, wfId);
    assert.deepEqual(fields.sc.fields.map((f: any) => [f.name, f.type, f.value]), [['words', 'text', 'Good morning.']]);
    assert.match(fields.text, /words/);
    assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1 AND kind = 'workflow'`, [accountId])).rows[0].n, runsBefore);
    // Step 2: with values (flat, by field name): it starts, waits and answers the outputs.
    const started = await ok('start_run', { workflow: 'Spoken greeting', values: { words: 'Hello, workflow.' } });
    assert.equal(started.sc.started, true);
    const done = ['COMPLETED', 'FAILED', 'CANCELED'].includes(started.sc.status) ? started : await untilDone(started.sc.runId, 'workflow');
    assert.equal(done.sc.status, 'COMPLETED', done.text);
    assert.match(done.text, /Run ID: run_/);
    const responseAt = done.text.indexOf('Response Output');
    const nodesAt = done.text.indexOf('Node Outputs');
    assert.ok(responseAt >= 0 && nodesAt > responseAt, done.text);
    assert.ok(done.sc.assets.length >= 1);
    assert.ok(done.text.includes(done.sc.assets[0].url));
    assert.equal((await fetch(done.sc.assets[0].url)).status, 200);
    assert.equal(done.sc.nodeOutputs.length, 1);
    // System workflows: listed and run by slug.
    const system = await ok('list_system_workflows');
    assert.ok(system.sc.items.some((w: any) => w.slug === 'sound-scene'));
    const sys = await ok('run_system_workflow', { slug: 'sound-scene', values: { seed: 3 } });
    assert.equal((['COMPLETED', 'FAILED', 'CANCELED'].includes(sys.sc.status) ? sys : await untilDone(sys.sc.runId, 'workflow')).sc.status, 'COMPLETED');
    // Deleting it; another account cannot see it.
    const other = await srv.user();
    const otherClient = new Client({ name: 'other', version: '1.0.0' });
    await otherClient.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${other.key}` } } }));
    const hidden = await call('get_workflow', { workflowId: wfId }, otherClient);
    assert.equal(hidden.isError, true);
    assert.match(hidden.text, /NOT_FOUND/);
    const hiddenRun = await call('get_run_status', { runId: done.sc.runId }, otherClient);
    assert.equal(hiddenRun.isError, true);
    assert.match(hiddenRun.text, /NOT_FOUND/);
    // Another account's file by its stable URL is not theirs to copy.
    const mine = await ok('upload_file', { base64: png(2, 2).toString('base64') });
    const stolen = await call('upload_file', { url: mine.sc.url }, otherClient);
    assert.equal(stolen.isError, true);
    assert.match(stolen.text, /VALIDATION_ERROR: url: file file_\w+ was not found/);
    await otherClient.close();
    const temp = await ok('create_workflow', { name: 'Temporary' });
    await ok('delete_workflow', { workflowId: temp.sc.id });
    assert.equal((await call('get_workflow', { workflowId: temp.sc.id })).isError, true);
  });

  test('job 7 — list_runs and get_generations', async () => {
    const runs = await ok('list_runs', { workflow: 'Spoken greeting' });
    assert.ok(runs.sc.runs.length >= 1);
    assert.ok(runs.sc.runs.every((r: any) => r.status === 'COMPLETED'));
    assert.match(runs.text, /Run ID: run_/);
    const completed = await ok('list_runs', { status: 'completed', search: 'spoken' });
    assert.equal(completed.sc.runs.length, runs.sc.runs.length);
    const none = await ok('list_runs', { status: 'FAILED' });
    assert.deepEqual(none.sc.runs, []);
    // Page by page, newest first, every file once.
    const all = await ok('get_generations', { limit: 100 });
    assert.ok(all.sc.generations.length >= 5, all.text);
    assert.ok(all.sc.generations.every((g: any) => /^run_/.test(g.runId) && typeof g.url === 'string'));
    const times = all.sc.generations.map((g: any) => g.createdAt);
    assert.deepEqual(times, [...times].sort().reverse());
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok('get_generations', { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sc.generations.map((g: any) => g.id));
      cursor = page.sc.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(seen, all.sc.generations.map((g: any) => g.id));
    const images = await ok('get_generations', { mediaType: 'image' });
    assert.ok(images.sc.generations.length >= 1);
    assert.ok(images.sc.generations.every((g: any) => g.contentType.startsWith('image/')));
    // Uploads are not generations.
    assert.ok(all.sc.generations.every((g: any) => g.runId !== null));
  });

  test('get_run_status answers "still running" within its bound while a run is queued', async () => {
    // A run no worker can take yet is still QUEUED when the wait bound ends.
    const waitSrv = await startTestServer({ ATELIER_MCP_WAIT_SECONDS: '1' }, { role: 'api' });
    try {
      const u = await waitSrv.user();
      const c = new Client({ name: 'waiter', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${waitSrv.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${u.key}` } } }));
      const s = await call('execute_tool', { tool_name: 'generate', input: { modelId: 'sfxr-jump' } }, c);
      assert.equal(s.isError, false, s.text);
      const r = await call('get_run_status', { runId: s.sc.runId, runType: 'model' }, c);
      assert.equal(r.isError, false, r.text);
      assert.equal(r.sc.status, 'QUEUED');
      assert.match(r.text, /still running/);
      assert.deepEqual(r.sc.assets, []);
      await c.close();
    } finally {
      await waitSrv.close();
    }
  });
});
