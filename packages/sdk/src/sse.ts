import type { RunOutputDelta, RunStreamEvent, WebhookEvent } from './types-runs.js';

/**
 * Parses a text/event-stream body into events. Comments (keep-alives) are skipped; the server closes
 * the stream after the run's final event, which ends the iteration.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<RunStreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const ev = parseBlock(block);
        if (ev) yield ev;
      }
    }
  } finally {
    // Stop the connection when the consumer breaks out early.
    await reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): RunStreamEvent | undefined {
  let id = '';
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { id, event, data: JSON.parse(data.join('\n')) as WebhookEvent | RunOutputDelta };
}
