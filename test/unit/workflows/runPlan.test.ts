import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allEnded, nextStep } from '../../../src/workflows/readyNode.js';
import { predecessorIndex, runPlan } from '../../../src/workflows/runPlan.js';
import type { Graph, GraphNode } from '../../../src/workflows/types.js';

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
