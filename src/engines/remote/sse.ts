/**
 * A server-sent events reader: yields the `data` of each event (multi-line data joined by "\n"), as
 * OpenAI-compatible servers stream chat completions (`data: {json}` … `data: [DONE]`).
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\n|\r/)) >= 0) {
        if (!done && nl === buf.length - 1 && buf[nl] === '\r') break; // a "\r\n" split across chunks
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
        // comments (":"), event:, id:, retry: carry nothing the chat reader needs
      }
      if (done) break;
    }
    if (buf.startsWith('data:')) data.push(buf.slice(5).replace(/^ /, ''));
    if (data.length) yield data.join('\n');
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
