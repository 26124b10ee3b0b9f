import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

// Small frames keep a 60 s encode to a few seconds; the price depends on the duration alone.
export const EDGE_FED_VIDEO = { width: 64, height: 64, fps: 12 };

/** A text of n words: word_count's `words` output, and so the video's duration in seconds. */
export const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/**
 * A workflow whose ken_burns_video takes its duration along an edge from word_count, so its price (per
 * second) is known only when that node is ready: request(text, image) → word_count → ken_burns_video →
 * extract_frame → response. Used by the node-charge tests (test/api/workflowCharges.test.ts) and the
 * spend-limit tests (test/api/budgets.test.ts).
 */
export async function edgeFedWorkflow(srv: TestServer, key: string): Promise<{ id: string; requestNodeId: string }> {
  const fields = [{ id: 'text', name: 'text', type: 'text' }, { id: 'image', name: 'image', type: 'image' }];
  const res = await srv.request('POST', '/v1/workflows', {
    key,
    body: {
      name: 'duration along an edge',
      requestFields: fields,
      nodes: [
        { id: 'req', type: 'request', position: { x: 0, y: 0 }, data: { fields } },
        { id: 'count', type: 'word_count', position: { x: 200, y: 0 }, data: {} },
        { id: 'video', type: 'ken_burns_video', position: { x: 400, y: 0 }, data: EDGE_FED_VIDEO },
        { id: 'frame', type: 'extract_frame', position: { x: 600, y: 0 }, data: {} },
        { id: 'res', type: 'response', position: { x: 800, y: 0 }, data: {} },
      ],
      edges: [
        { id: 'e1', source: 'req', sourceHandle: 'text', target: 'count', targetHandle: 'in:text' },
        { id: 'e2', source: 'count', sourceHandle: 'out:words', target: 'video', targetHandle: 'in:duration' },
        { id: 'e3', source: 'req', sourceHandle: 'image', target: 'video', targetHandle: 'in:image_url' },
        { id: 'e4', source: 'video', sourceHandle: 'out:result', target: 'frame', targetHandle: 'in:video_url' },
        { id: 'e5', source: 'frame', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, requestNodeId: res.body.requestNodeId };
}
