import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { runDoctor } from '../../src/ops/doctor.js';
import { edgeFedWorkflow, words } from '../helpers/edgeFedWorkflow.js';

// Issue 29 item 1 for workflows: the spend limits hold for a workflow run's hold at creation and for each
// node's hold when it is priced at its actual input; a node that would pass a limit fails BUDGET_EXCEEDED
// as it fails INSUFFICIENT_CREDITS; releases give back, captures keep (the key's spend after the run is what
// it was charged). The workflow is test/api/workflowCharges.test.ts's: the duration of ken_burns_video
// arrives along an edge from word_count, so its price (1,500 µc a second) is known only when it is ready.
let srv: TestServer;
let image: string;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  image = `data:image/png;base64,${(await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 40, g: 120, b: 200 } } }).png().toBuffer()).toString('base64')}`;
});
after(async () => {
  await srv.close();
});



async function keyWithDailyLimit(u: { key: string }, limit: number): Promise<string> {
  const id = (await srv.request('GET', '/v1/keys', { key: u.key })).body.keys[0].id;
  const set = await srv.request('PATCH', `/v1/keys/${id}`, { key: u.key, body: { budgets: { day: limit } } });
  assert.equal(set.status, 200, set.text);
  return id;
}

async function spentOf(u: { key: string }, keyId: string): Promise<number> {
  return (await srv.request('GET', `/v1/keys/${keyId}`, { key: u.key })).body.budgets[0].spentMicrocredits;
}

test("a node whose actual price would pass the key's daily limit fails BUDGET_EXCEEDED; the key's spend ends at what was charged", async () => {
  const u = await srv.user({ microcredits: 1_000_000n });
  const keyId = await keyWithDailyLimit(u, 40_000);
  const wf = await edgeFedWorkflow(srv, u.key);
  const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(60), image } } } });
  assert.equal(created.status, 202, created.text);
  assert.ok(created.body.estimatedCredits <= 40_000, 'the estimate fits the limit');
  const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'FAILED');
  const by = Object.fromEntries(run.nodeRuns.map((n: any) => [n.nodeId, n]));
  assert.equal(by.count.status, 'COMPLETED');
  assert.equal(by.video.status, 'FAILED');
  assert.equal(by.video.errorCode, 'BUDGET_EXCEEDED');
  assert.match(by.video.error, /daily spend limit of 40000/);
  assert.equal(by.video.creditUsed, 0);
  assert.equal(by.frame.status, 'SKIPPED');
  // Holds released gave back; the capture of word_count kept its share.
  assert.equal(await spentOf(u, keyId), by.count.creditUsed);
  // Nothing of the run is left in the limits' hold records once every hold is settled.
  assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM budget_holds WHERE run_id = $1`, [created.body.runId])).rows[0].n, 0);
  const b = await balance(srv, u.key);
  assert.equal(b.reservedMicrocredits, 0);
  assert.equal(b.availableBalance, 1_000_000 - by.count.creditUsed);
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600, catalog: srv.services.catalog });
  assert.ok(report.ok, JSON.stringify(report.findings, null, 1));
});

test('a completed workflow run keeps its charge in the spend; a run whose estimate would pass the limit is refused at creation', async () => {
  const u = await srv.user({ microcredits: 1_000_000n });
  const keyId = await keyWithDailyLimit(u, 40_000);
  const wf = await edgeFedWorkflow(srv, u.key);
  const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(3), image } } } });
  assert.equal(created.status, 202, created.text);
  const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'COMPLETED', run.error);
  assert.equal(await spentOf(u, keyId), run.actualCredits);

  // Lower the limit to what was spent: the next run's estimate no longer fits, and nothing is held.
  await srv.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { budgets: { day: run.actualCredits } } });
  const before = await balance(srv, u.key);
  const refused = expectErrorBody(await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(3), image } } } }), 403, 'BUDGET_EXCEEDED');
  assert.equal(refused.limit.scope, 'key');
  assert.equal(refused.limit.period, 'day');
  assert.deepEqual(await balance(srv, u.key), before);
  // A cheap model run of another key of the same account is not limited by this key's limit.
  const user = await srv.services.accounts.requireByEmail(u.email);
  const other = await srv.services.keys.create(user, { label: 'other', perMinute: 1000, perDay: 1000 });
  const ok = await srv.request('POST', '/v1/nodes/word_count/run', { key: other.key, body: { input: { text: 'a b c' } } });
  assert.equal(ok.status, 202, ok.text);
});

test("a batch is held against the key's limits as one hold; each run's share is given back by its own settle; a key limited to other models is refused", async () => {
  const u = await srv.user({ microcredits: 1_000_000n });
  const price = (await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'a b c' } } })).body;
  await waitForStatus(srv, u.key, `/v1/nodes/runs/${price.runId ?? price.id}`, ['COMPLETED'], 60_000);
  const one = (await srv.request('GET', `/v1/nodes/runs/${price.runId ?? price.id}`, { key: u.key })).body.creditUsed as number;
  assert.ok(one > 0, 'word_count costs something');
  const keyId = await keyWithDailyLimit(u, one * 4);
  const spent0 = await spentOf(u, keyId);
  const inputs = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `batch ${i}` }));
  // Five runs would pass what is left of the limit: refused whole, nothing held.
  const before = await balance(srv, u.key);
  const refused = expectErrorBody(await srv.request('POST', '/v1/nodes/word_count/batch', { key: u.key, body: { inputs: inputs(5) } }), 403, 'BUDGET_EXCEEDED');
  assert.equal(refused.limit.period, 'day');
  assert.deepEqual(await balance(srv, u.key), before);
  // Three fit: admitted, each run's share recorded apart, and once all are charged the spend is what was charged.
  const ok = await srv.request('POST', '/v1/nodes/word_count/batch', { key: u.key, body: { inputs: inputs(3) } });
  assert.equal(ok.status, 202, ok.text);
  const shares = await srv.services.db.query(`SELECT count(DISTINCT run_id)::int AS n FROM budget_holds WHERE run_id = ANY($1)`, [ok.body.runs.map((r: any) => r.runId)]);
  assert.ok(shares.rows[0].n <= 3);
  for (const r of ok.body.runs) await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.runId}`, ['COMPLETED'], 60_000);
  assert.equal(await spentOf(u, keyId), spent0 + 3 * one);
  const left = await srv.services.db.query(`SELECT count(*)::int AS n FROM budget_holds WHERE run_id = ANY($1)`, [ok.body.runs.map((r: any) => r.runId)]);
  assert.equal(left.rows[0].n, 0, 'every share settled');
  // A key limited to another model may not start a batch of this one.
  const set = await srv.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { nodeTypes: ['espeak_tts'] } });
  assert.equal(set.status, 200, set.text);
  expectErrorBody(await srv.request('POST', '/v1/nodes/word_count/batch', { key: u.key, body: { inputs: inputs(1) } }), 403, 'KEY_SCOPE_MODEL');
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600, catalog: srv.services.catalog });
  assert.ok(report.ok, JSON.stringify(report.findings, null, 1));
});

test("a key's limits share one row: a limit set later counts the period's spend since the first, and one set below that spend refuses without a doctor finding", async () => {
  const u = await srv.user({ microcredits: 1_000_000n });
  const keyId = await keyWithDailyLimit(u, 1_000_000);
  const first = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'a b c' } } });
  assert.equal(first.status, 202, first.text);
  const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${first.body.runId}`, ['COMPLETED'], 60_000);
  const charged = done.creditUsed as number;
  assert.ok(charged > 0);
  // The daily limit goes and a monthly one comes in one request: the month's spend so far is counted, not zero.
  const set = await srv.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { budgets: { day: null, month: charged * 10 } } });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.budgets.map((b: any) => [b.period, b.limitMicrocredits, b.spentMicrocredits]), [['month', charged * 10, charged]]);
  // A total limit set below what the key already spent: the next run is refused, and the doctor does not call it an overspend.
  await srv.request('PATCH', `/v1/keys/${keyId}`, { key: u.key, body: { budgets: { total: charged - 1 } } });
  const refused = expectErrorBody(await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'a b c' } } }), 403, 'BUDGET_EXCEEDED');
  assert.equal(refused.limit.period, 'total');
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600, catalog: srv.services.catalog });
  assert.ok(report.ok, JSON.stringify(report.findings, null, 1));
});
