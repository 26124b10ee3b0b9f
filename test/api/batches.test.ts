import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, until } from '../helpers/poll.js';
import { FakeServer } from '../helpers/providers/server.js';
import { runDoctor } from '../../src/ops/doctor.js';

/**
 * Batch runs (issue 29 item 5): one call with N inputs of one model, one exact estimate, one hold, N runs
 * each charged or refunded on its own, one batch record with its progress. The model is an operator model
 * on a loopback OpenAI-compatible fake that answers at once, and refuses (HTTP 400) the one prompt "FAIL".
 */
const NODE_TYPE = 'batch_chat';
const PRICE = 1000;
let srv: TestServer;
let fake: FakeServer;
let dataDir: string;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-batch-'));
  fake = new FakeServer(async (req) => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return { status: 404, json: { error: { message: 'not here' } } };
    const body = req.json();
    const prompt = String(body.messages?.at(-1)?.content ?? '');
    if (prompt === 'FAIL') return { status: 400, json: { error: { message: 'this prompt is refused', type: 'invalid_request_error', code: null } } };
    return {
      json: {
        id: 'chatcmpl-batch', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `done: ${prompt}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      },
    };
  });
  await fake.start();
  process.env.OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.OPENAI_API_KEY = 'sk-batch';
  fs.writeFileSync(path.join(dataDir, 'atelier.models.json'), JSON.stringify({
    models: [{
      nodeType: NODE_TYPE, name: 'Batch chat (test)', description: 'Answers at once; refuses FAIL', category: 'llm',
      modes: [{
        subModelId: 'batch-chat', label: 'Chat', category: 'text-generation', fields: ['prompt'],
        pricing: { kind: 'flat', microcredits: PRICE },
        engine: { engine: 'openai', options: { operation: 'chat', model: 'gpt-test', stream: false } },
      }],
    }],
  }));
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { dataDir });
});
after(async () => {
  await srv.close();
  await fake.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a batch of 50 inputs with one failing input: one hold, 49 charged, one refunded, one batch record; the ledger agrees', async () => {
  const u = await srv.user({ microcredits: 1_000_000n });
  const before = await balance(srv, u.key);
  const inputs = Array.from({ length: 50 }, (_, i) => ({ prompt: i === 17 ? 'FAIL' : `item ${i}` }));
  const created = await srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: u.key, body: { inputs } });
  assert.equal(created.status, 202, created.text);
  const id = created.body.id as string;
  assert.match(id, /^bat_/);
  assert.equal(created.headers.get('location'), `/v1/batches/${id}`);
  assert.equal(created.body.size, 50);
  assert.equal(created.body.estimatedCredits, 50 * PRICE);
  assert.equal(created.body.runs.length, 50);
  assert.deepEqual(created.body.runs.map((r: any) => r.index), inputs.map((_, i) => i));

  // One hold for the whole batch: one balance update covering all 50 (one reserve ledger row per run).
  const holdRows = (await srv.services.db.query(`SELECT count(*)::int AS n, sum(reserved_delta)::bigint AS held FROM ledger_entries
    WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId])).rows[0];
  assert.equal(holdRows.n, 50);
  assert.equal(Number(holdRows.held), 50 * PRICE);

  let batch: any;
  await until('every run of the batch ended', async () => {
    batch = (await srv.request('GET', `/v1/batches/${id}`, { key: u.key })).body;
    return batch.counts.queued + batch.counts.running === 0;
  }, 180_000);
  assert.equal(batch.status, 'COMPLETED');
  assert.deepEqual(batch.counts, { queued: 0, running: 0, completed: 49, failed: 1, canceled: 0 });
  assert.equal(batch.progress, 1);
  assert.equal(batch.creditUsed, 49 * PRICE);
  assert.equal(batch.refundedCredits, PRICE);
  assert.equal(batch.runs[17].status, 'FAILED');
  assert.equal(batch.runs[17].creditUsed, 0);
  assert.ok(batch.finishedAt);

  // Each run is its own record, naming its batch.
  const failed = (await srv.request('GET', `/v1/nodes/runs/${batch.runs[17].runId}`, { key: u.key })).body;
  assert.equal(failed.batchId, id);
  assert.equal(failed.status, 'FAILED');
  assert.equal((await srv.request('GET', `/v1/nodes/runs/${batch.runs[3].runId}`, { key: u.key })).body.output.output, 'done: item 3');

  // The ledger agrees: 49 captures and 1 release of one price each; the balance lost exactly 49 prices.
  const entries = (await srv.services.db.query(`SELECT kind, count(*)::int AS n, sum(posted_delta)::bigint AS posted, sum(reserved_delta)::bigint AS reserved
    FROM ledger_entries WHERE account_id = $1 AND run_id IS NOT NULL GROUP BY kind ORDER BY kind`, [u.accountId])).rows
    .map((r: any) => ({ kind: r.kind, n: r.n, posted: Number(r.posted), reserved: Number(r.reserved) }));
  assert.deepEqual(entries, [
    { kind: 'capture', n: 49, posted: -49 * PRICE, reserved: -49 * PRICE },
    { kind: 'release', n: 1, posted: 0, reserved: -PRICE },
    { kind: 'reserve', n: 50, posted: 0, reserved: 50 * PRICE },
  ]);
  const after = await balance(srv, u.key);
  assert.equal(after.availableBalance, before.availableBalance - 49 * PRICE);
  assert.equal(after.reservedMicrocredits, 0);
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600 });
  assert.deepEqual(report.findings, []);
});

test('a batch the balance cannot cover in full starts nothing; a bad input refuses the whole batch, naming it', async () => {
  const u = await srv.user({ microcredits: BigInt(3 * PRICE) });
  const poor = await srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: u.key, body: { inputs: [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }, { prompt: 'd' }] } });
  assert.equal(poor.status, 403, poor.text);
  assert.equal(poor.body.code, 'INSUFFICIENT_CREDITS');
  assert.equal(poor.body.requiredMicrocredits, 4 * PRICE);
  const bad = await srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: u.key, body: { inputs: [{ prompt: 'a' }, { prompt: 42 }] } });
  assert.equal(bad.status, 400, bad.text);
  assert.ok(bad.body.details.some((d: any) => d.path.startsWith('body.inputs[1]')), bad.text);
  const tooMany = await srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: u.key, body: { inputs: Array.from({ length: 101 }, () => ({ prompt: 'x' })) } });
  assert.equal(tooMany.status, 400, tooMany.text);
  const b = await balance(srv, u.key);
  assert.equal(b.availableBalance, 3 * PRICE);
  assert.equal(b.reservedMicrocredits, 0);
  assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [u.accountId])).rows[0].n, 0);
});

test('another account cannot see a batch; an unknown one is 404', async () => {
  const a = await srv.user();
  const b = await srv.user();
  const created = await srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: a.key, body: { inputs: [{ prompt: 'mine' }] } });
  assert.equal(created.status, 202, created.text);
  assert.equal((await srv.request('GET', `/v1/batches/${created.body.id}`, { key: b.key })).status, 404);
  assert.equal((await srv.request('GET', '/v1/batches/bat_nothere', { key: a.key })).status, 404);
  assert.equal((await srv.request('GET', '/v1/batches/x%27', { key: a.key })).status, 404);
});

test('MCP batch_execute with items of one model makes one batch: one hold, one record', async () => {
  const u = await srv.user();
  const res = await srv.request('POST', '/mcp', {
    key: u.key, headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_tool', arguments: { tool_name: 'batch_execute', input: { items: ['x', 'y', 'z'].map((prompt) => ({ modelId: NODE_TYPE, prompt })) } } } },
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  const sc = res.body.result.structuredContent;
  assert.match(sc.batchId, /^bat_/, JSON.stringify(sc));
  assert.equal(sc.started, 3);
  assert.deepEqual(sc.runs.map((r: any) => r.index), [0, 1, 2]);
  const batch = (await srv.request('GET', `/v1/batches/${sc.batchId}`, { key: u.key })).body;
  assert.equal(batch.size, 3);
  assert.equal(batch.estimatedCredits, 3 * PRICE);
  assert.deepEqual(batch.runs.map((r: any) => r.runId), sc.runs.map((r: any) => r.runId));
});

test('the SDK starts, reads and cancels a batch (client.batches)', async () => {
  const { Atelier } = await import('../../packages/sdk/src/index.js');
  const u = await srv.user();
  const client = new Atelier({ apiKey: u.key, baseUrl: srv.url });
  const batch = await client.batches.create(NODE_TYPE, { inputs: [{ prompt: 'sdk 1' }, { prompt: 'sdk 2' }], priority: -1 });
  assert.equal(batch.size, 2);
  assert.equal(batch.priority, -1);
  assert.equal((await client.batches.get(batch.id)).id, batch.id);
  const after = await client.batches.cancel(batch.id);
  assert.equal(after.counts.queued + after.counts.running, 0);
  assert.equal(after.creditUsed + after.refundedCredits, 2 * PRICE);
});

test('an Idempotency-Key makes a repeated batch create answer the first batch and hold nothing more', async () => {
  const u = await srv.user();
  const send = (inputs: unknown[]) => srv.request('POST', `/v1/nodes/${NODE_TYPE}/batch`, { key: u.key, body: { inputs }, headers: { 'idempotency-key': 'batch-once' } });
  const first = await send([{ prompt: 'i1' }, { prompt: 'i2' }]);
  assert.equal(first.status, 202, first.text);
  const again = await send([{ prompt: 'i1' }, { prompt: 'i2' }]);
  assert.equal(again.status, 202, again.text);
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const other = await send([{ prompt: 'different' }]);
  assert.equal(other.status, 409, other.text);
  const n = (await srv.services.db.query(`SELECT count(*)::int AS n FROM runs WHERE account_id = $1`, [u.accountId])).rows[0].n;
  assert.equal(n, 2);
});
