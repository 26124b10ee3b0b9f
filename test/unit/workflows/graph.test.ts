import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModeDef } from '../../../src/catalog/types.js';
import { f } from '../../../src/catalog/fields.js';
import { compatible } from '../../../src/workflows/ports.js';
import { topologicalOrder, validateGraph, type ModeLookup } from '../../../src/workflows/validate.js';
import type { Graph, GraphNode } from '../../../src/workflows/types.js';
import { firstFreeRow, positionFor } from '../../../src/workflows/layout.js';

const tts: ModeDef = {
  subModelId: 'tts', label: 'TTS', category: 'text-to-speech', fields: [f.text('text', 'Text', { required: true })],
  outputs: [{ name: 'result', dataType: 'audio' }], pricing: { kind: 'flat', microcredits: 1 }, engine: { engine: 'x' },
};
const video: ModeDef = {
  subModelId: 'vid', label: 'Video', category: 'video-utility', fields: [f.audio(), f.images({ required: false })],
  outputs: [{ name: 'result', dataType: 'video' }], pricing: { kind: 'flat', microcredits: 1 }, engine: { engine: 'x' },
};
const lookup: ModeLookup = (n) => (n.type === 'tts' ? { mode: tts } : n.type === 'vid' ? { mode: video } : { error: `unknown model ${n.type}` });
const node = (id: string, type: string, data: Record<string, unknown> = {}): GraphNode => ({ id, type, subModelId: null, label: null, position: { x: 0, y: 0 }, data });
const edge = (id: string, source: string, sourceHandle: string, target: string, targetHandle: string) => ({ id, source, sourceHandle, target, targetHandle });

function base(): Graph {
  return {
    nodes: [node('req', 'request', { fields: [{ id: 'prompt', name: 'prompt', type: 'text' }, { id: 'pic', name: 'pic', type: 'image' }] }), node('a', 'tts'), node('b', 'vid'), node('res', 'response')],
    edges: [edge('e1', 'req', 'prompt', 'a', 'in:text'), edge('e2', 'a', 'out:result', 'b', 'in:audio_url'), edge('e3', 'b', 'out:result', 'res', 'result')],
  };
}

test('a well-formed graph has no errors and a topological order', () => {
  assert.deepEqual(validateGraph(base(), lookup, { runnable: true }), []);
  const order = topologicalOrder(base());
  assert.ok(order.indexOf('req') < order.indexOf('a') && order.indexOf('a') < order.indexOf('b') && order.indexOf('b') < order.indexOf('res'));
});

test('each kind of error names its node and port', () => {
  const cases: Array<[(g: Graph) => void, { nodeId: string; port?: string; match: RegExp }]> = [
    [(g) => g.edges.push(edge('e4', 'b', 'out:result', 'a', 'in:text')), { nodeId: 'a', port: 'in:text', match: /cannot feed|one edge/ }],
    [(g) => g.edges.push(edge('e4', 'req', 'prompt', 'b', 'in:nope')), { nodeId: 'b', port: 'in:nope', match: /no input port/ }],
    [(g) => g.edges.push(edge('e4', 'a', 'out:nope', 'b', 'in:image_urls')), { nodeId: 'a', port: 'out:nope', match: /no output port/ }],
    [(g) => g.edges.push(edge('e4', 'req', 'pic', 'a', 'in:text')), { nodeId: 'a', port: 'in:text', match: /image from req.pic cannot feed a text input/ }],
    [(g) => g.nodes.push(node('z', 'mystery')), { nodeId: 'z', match: /unknown model mystery/ }],
    [(g) => g.nodes.push(node('a', 'tts')), { nodeId: 'a', match: /duplicate node id/ }],
    [(g) => { g.nodes = g.nodes.filter((n) => n.type !== 'response'); g.edges.pop(); }, { nodeId: '*', match: /no Response node/ }],
    [(g) => g.nodes.push(node('req2', 'request')), { nodeId: 'req2', match: /exactly one Request node/ }],
    [(g) => g.edges.push(edge('e4', 'ghost', 'x', 'a', 'in:text')), { nodeId: 'ghost', match: /does not exist/ }],
  ];
  for (const [mutate, want] of cases) {
    const g = base();
    mutate(g);
    const errors = validateGraph(g, lookup, { runnable: true });
    const hit = errors.find((e) => e.nodeId === want.nodeId && (want.port === undefined || e.port === want.port) && want.match.test(e.message));
    assert.ok(hit, `expected ${JSON.stringify(want)} in ${JSON.stringify(errors)}`);
  }
});

test('cycles are found and every node on them named', () => {
  const g = base();
  g.nodes.push(node('c', 'tts'), node('d', 'vid'));
  g.edges.push(edge('x1', 'c', 'out:result', 'd', 'in:audio_url'), edge('x2', 'd', 'out:result', 'c', 'in:text'));
  const errors = validateGraph(g, () => ({ mode: { ...tts, fields: [...tts.fields, ...video.fields] } }), { runnable: true });
  const cyc = errors.filter((e) => /cycle/.test(e.message)).map((e) => e.nodeId).sort();
  assert.deepEqual(cyc, ['c', 'd']);
});

test('list inputs and the Response node take several edges; single inputs one', () => {
  const g = base();
  g.nodes.push(node('a2', 'tts'));
  g.edges.push(edge('e5', 'req', 'pic', 'b', 'in:image_urls'), edge('e6', 'req', 'pic', 'b', 'in:image_urls'));
  g.edges.push(edge('e7', 'req', 'prompt', 'a2', 'in:text'), edge('e8', 'a2', 'out:result', 'res', 'result'));
  assert.deepEqual(validateGraph(g, lookup, { runnable: true }), []);
  g.edges.push(edge('e9', 'a2', 'out:result', 'b', 'in:audio_url'));
  assert.ok(validateGraph(g, lookup, { runnable: true }).some((e) => e.nodeId === 'b' && e.port === 'in:audio_url' && /one edge/.test(e.message)));
});

test('more than 100 nodes is refused', () => {
  const g: Graph = { nodes: Array.from({ length: 101 }, (_, i) => node(`n${i}`, 'tts')), edges: [] };
  assert.match(validateGraph(g, lookup, { runnable: false })[0]!.message, /at most 100 nodes/);
});

test('type compatibility rules', () => {
  assert.ok(compatible('text', 'text'));
  assert.ok(compatible('image', 'any'));
  assert.ok(compatible('text', 'number'));
  assert.ok(compatible('text', 'select'));
  assert.ok(compatible('audio', 'avmedia'));
  assert.ok(!compatible('image', 'text'));
  assert.ok(!compatible('number', 'image'));
});

test('layout places columns and finds free rows', () => {
  assert.deepEqual(positionFor(0, 0), { x: 80, y: 80 });
  assert.deepEqual(positionFor(2, 1), { x: 800, y: 300 });
  assert.equal(firstFreeRow(1, [positionFor(1, 0), positionFor(1, 1), positionFor(2, 2)]), 2);
  assert.equal(firstFreeRow(2, [positionFor(1, 0)]), 0);
});
