import { test } from 'node:test';
import assert from 'node:assert/strict';
import { f } from '../../../../src/catalog/fields.js';
import type { CatalogModel } from '../../../../src/web/editor/api.js';
import { Catalog, autoLayout, edgeProblems, fromGraph, starterGraph, toGraph } from '../../../../src/web/editor/graph.js';
import type { Graph } from '../../../../src/workflows/types.js';

// The editor's wiring check: one more edge through the API's validator, refused with the validator's words.
const model = (nodeType: string, fields: CatalogModel['modes'][number]['fields'], outType: 'text' | 'audio'): CatalogModel => ({
  nodeType, name: nodeType, description: '', category: 'audio', accent: 'violet', provider: 'local', multiMode: false, defaultSubModelId: nodeType, available: true,
  modes: [{ subModelId: nodeType, label: nodeType, category: 'text-to-speech', description: '', fields, outputs: [{ name: 'result', dataType: outType }], available: true }],
});
const catalog = new Catalog([model('tts', [f.text('text', 'Text')], 'audio'), model('echo', [f.text('text', 'Text')], 'text')]);
const n = (id: string, type: string) => ({ id, type, subModelId: null, label: null, position: { x: 0, y: 0 }, data: {} });
const e = (id: string, source: string, sourceHandle: string, target: string, targetHandle: string) => ({ id, source, sourceHandle, target, targetHandle });
const graph: Graph = {
  nodes: [{ ...n('req', 'request'), data: { fields: [{ id: 'prompt', name: 'prompt', type: 'text' }] } }, n('a', 'echo'), n('b', 'echo'), n('t', 'tts'), n('res', 'response')],
  edges: [e('e1', 'req', 'prompt', 'a', 'in:text'), e('e2', 'a', 'out:result', 'b', 'in:text')],
};

test('a compatible edge passes; the four refusals carry the validator\'s messages', () => {
  assert.deepEqual(edgeProblems(catalog, graph, e('ok', 'b', 'out:result', 't', 'in:text')), []);
  assert.deepEqual(edgeProblems(catalog, graph, e('x', 't', 'out:result', 'a', 'in:text')).slice(-1), ['node a port in:text: this input takes one edge; it has several']);
  assert.deepEqual(edgeProblems(catalog, { ...graph, edges: [graph.edges[0]!] }, e('x', 't', 'out:result', 'b', 'in:text')), ['node b port in:text: audio from t.out:result cannot feed a text input']);
  assert.deepEqual(edgeProblems(catalog, graph, e('x', 'a', 'out:result', 'a', 'in:text')), ['node a: edge x connects the node to itself']);
  const cycle = edgeProblems(catalog, { ...graph, edges: [e('e2', 'a', 'out:result', 'b', 'in:text')] }, e('x', 'b', 'out:result', 'a', 'in:text'));
  assert.deepEqual(cycle, ['node a: this node is part of a cycle', 'node b: this node is part of a cycle']);
});

test('canvas nodes round-trip to the stored graph; built-ins cannot be deleted; auto-layout goes left to right', () => {
  const start = starterGraph();
  assert.deepEqual(start.nodes.map((x) => x.type), ['request', 'response']);
  const flow = fromGraph(graph, false);
  assert.deepEqual(toGraph(flow.nodes, flow.edges), graph);
  assert.deepEqual(flow.nodes.map((x) => x.deletable), [false, true, true, true, false]);
  assert.ok(fromGraph(graph, true).nodes.every((x) => x.deletable === false && x.draggable === false));
  const laid = autoLayout(flow.nodes, flow.edges);
  const x = (id: string) => laid.find((nd) => nd.id === id)!.position.x;
  assert.ok(x('req') < x('a') && x('a') < x('b'));
});
