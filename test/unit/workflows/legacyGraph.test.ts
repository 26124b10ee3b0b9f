import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalHandle, upgradeGraph } from '../../../src/workflows/legacyGraph.js';
import type { Graph } from '../../../src/workflows/types.js';

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, subModelId: null, label: null, position: { x: 0, y: 0 }, data });
const edge = (id: string, source: string, sourceHandle: string, target: string, targetHandle: string) => ({ id, source, sourceHandle, target, targetHandle });

test('legacy output handles move to the hosted keys, per node type only', () => {
  assert.equal(canonicalHandle('crop_image', 'out:result'), 'out:image_url');
  assert.equal(canonicalHandle('merge_videos', 'out:result'), 'out:video_url');
  assert.equal(canonicalHandle('extract_audio', 'out:result'), 'out:audio_url');
  assert.equal(canonicalHandle('resize_image', 'out:result'), 'out:result');
  assert.equal(canonicalHandle('crop_image', 'out:image_url'), 'out:image_url');
  // Caller-chosen strings never reach the tables' prototypes.
  assert.equal(canonicalHandle('constructor', 'toString'), 'toString');
  assert.equal(canonicalHandle('crop_image', 'constructor'), 'constructor');
});

test('a saved graph with old handles and crop/merge inputs is upgraded; an up-to-date graph is returned as it is', () => {
  const old: Graph = {
    nodes: [node('req', 'request'), node('crop', 'crop_image', { left: 5, top: 6, width: 70, height: 80 }), node('merge', 'merge_videos', { fps: 24, width: 640 }), node('res', 'response')],
    edges: [
      edge('e1', 'req', 'w', 'crop', 'in:width'),
      edge('e2', 'crop', 'out:result', 'res', 'result'),
      edge('e3', 'req', 'f', 'merge', 'in:fps'),
      edge('e4', 'merge', 'out:result', 'res', 'result'),
      edge('e5', 'req', 'image', 'crop', 'in:image_url'),
    ],
  };
  const up = upgradeGraph(old);
  assert.deepEqual(up.nodes[1]!.data, { x_px: 5, y_px: 6, width_px: 70, height_px: 80 });
  assert.deepEqual(up.nodes[2]!.data, {}, 'merge_videos no longer takes a size or frame rate');
  assert.deepEqual(up.edges.map((e) => `${e.id} ${e.sourceHandle}→${e.targetHandle}`), [
    'e1 w→in:width_px', 'e2 out:image_url→result', 'e4 out:video_url→result', 'e5 image→in:image_url',
  ]);
  assert.deepEqual(old.nodes[1]!.data, { left: 5, top: 6, width: 70, height: 80 }, 'the input graph is not changed');
  assert.equal(upgradeGraph(up), up, 'nothing left to upgrade: the same object');
  const current: Graph = { nodes: [node('c', 'crop_image', { constructor: 1, x_percent: 3 })], edges: [edge('x', 'c', 'out:image_url', 'r', 'result')] };
  assert.equal(upgradeGraph(current), current);
});
