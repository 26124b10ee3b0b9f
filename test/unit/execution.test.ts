import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { allEnded, nextStep, predecessorIndex } from '../../src/workflows/readySet.js';
import { runPlan } from '../../src/workflows/runPlan.js';
import { cachedOutput, storeCachedOutput } from '../../src/workflows/nodeCache.js';
import { outputBytes } from '../../src/execution/limits.js';
import { executionLimitsFromEnv } from '../../src/config.js';
import { familyOf } from '../../src/execution/pools.js';
import type { Graph, GraphNode } from '../../src/workflows/types.js';
import { freshDatabase } from '../helpers/db.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import { loadConfig } from '../../src/config.js';

const node = (id: string, type = 'm'): GraphNode => ({ id, type, subModelId: null, label: null, position: { x: 0, y: 0 }, data: {} });
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, sourceHandle: 'out:x', target, targetHandle: 'in:x' });
// req → a → c, b → c (c has two predecessors), c → res
const graph: Graph = {
  nodes: [node('req', 'request'), node('a'), node('b'), node('c'), node('res', 'response')],
  edges: [edge('req', 'a'), edge('a', 'c'), edge('b', 'c'), edge('c', 'res')],
};

test('ready-set: a node is ready when every predecessor completed, skipped when one did not, else waits', () => {
  const s = (a: string, b: string, c = 'PENDING') => new Map([['a', a], ['b', b], ['c', c]]);
  assert.equal(nextStep(graph, s('PENDING', 'PENDING'), 'a'), 'ready', 'the request node is not a predecessor that counts');
  assert.equal(nextStep(graph, s('COMPLETED', 'RUNNING'), 'c'), 'wait');
  assert.equal(nextStep(graph, s('COMPLETED', 'COMPLETED'), 'c'), 'ready');
  for (const bad of ['FAILED', 'SKIPPED', 'CANCELED']) assert.equal(nextStep(graph, s('COMPLETED', bad), 'c'), 'skip');
  assert.equal(nextStep(graph, s('COMPLETED', 'COMPLETED', 'QUEUED'), 'c'), 'none');
  assert.equal(allEnded(['COMPLETED', 'SKIPPED', 'FAILED', 'CANCELED']), true);
  assert.equal(allEnded(['COMPLETED', 'RUNNING']), false);
  // The same answers from a predecessor index built once for the graph (what the executor passes).
  const index = predecessorIndex(graph);
  assert.deepEqual(index.get('c'), ['a', 'b']);
  assert.deepEqual(index.get('a'), ['req']);
  assert.equal(nextStep(graph, s('COMPLETED', 'RUNNING'), 'c', index), 'wait');
  assert.equal(nextStep(graph, s('COMPLETED', 'COMPLETED'), 'c', index), 'ready');
  assert.equal(nextStep(graph, s('COMPLETED', 'FAILED'), 'c', index), 'skip');
});

test('run plan: the nodes that run, each node\'s predecessors and its successors that run, in graph order', () => {
  const plan = runPlan('run_x', { account_id: 'acc', workflow_id: 'wf', webhook: null, input: null, cancel_after: null, graph });
  assert.deepEqual(plan.modelNodes.map((n) => n.id), ['a', 'b', 'c']);
  assert.deepEqual([...plan.runs], ['a', 'b', 'c']);
  assert.deepEqual(plan.succs.get('req')!.map((n) => n.id), ['a']);
  assert.deepEqual(plan.succs.get('a')!.map((n) => n.id), ['c']);
  assert.deepEqual(plan.succs.get('c')!.map((n) => n.id), [], 'the response node does not run');
  assert.deepEqual(plan.preds.get('c'), ['a', 'b']);
  assert.deepEqual(plan.input, {});
});

test('output size counts UTF-8 text, file bytes and JSON text', () => {
  assert.equal(outputBytes({ output: { kind: 'text', text: 'é' } }), 2);
  assert.equal(outputBytes({ result: [{ kind: 'file', data: Buffer.alloc(10), contentType: 'x' }, { kind: 'file', data: Buffer.alloc(5), contentType: 'x' }] }), 15);
  assert.equal(outputBytes({ value: { kind: 'json', value: { a: [1, 2] } } }), '{"a":[1,2]}'.length);
  assert.equal(executionLimitsFromEnv({}).maxOutputBytes, 64 * 1024 * 1024);
  assert.throws(() => executionLimitsFromEnv({ ATELIER_MAX_OUTPUT_BYTES: 'lots' }), /ATELIER_MAX_OUTPUT_BYTES/);
  assert.equal(familyOf('word-count'), familyOf('markdown-html'));
  assert.equal(familyOf('some-new-engine'), 'some-new-engine');
});

let database: Database;
let drop: () => Promise<void>;
before(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  database = await openDatabase(loadConfig({ DATABASE_URL: fresh.url }), { poolSize: 2 });
});
after(async () => {
  await database.close();
  await drop();
});

test('node cache: stored outputs are found by account and key, and not once a file they refer to is gone', async () => {
  const db = database.db;
  const account = (await db.query(`INSERT INTO accounts (id, kind, name) VALUES ('acc_cache_test', 'user', 'Cache') RETURNING id`)).rows[0].id as string;
  await storeCachedOutput(db, { accountId: account, key: 'k1', nodeType: 'word_count', output: { output: 'x' }, workflowId: null, runId: 'run_x' });
  assert.deepEqual(await cachedOutput(db, account, 'k1'), { output: 'x' });
  assert.equal(await cachedOutput(db, account, 'k2'), undefined);
  await storeCachedOutput(db, { accountId: account, key: 'k3', nodeType: 'resize_image', output: { result: [{ file: 'file_missing' }] }, workflowId: null, runId: 'run_x' });
  assert.equal(await cachedOutput(db, account, 'k3'), undefined, 'an entry whose file is gone is not used');
});
