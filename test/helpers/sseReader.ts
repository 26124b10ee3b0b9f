/** One Server-Sent Events message as a client sees it. */
export interface SseMessage {
  id?: string;
  event: string;
  data: any;
}

/**
 * Reads an event stream message by message as it arrives (openEventStream in streams.ts collects the whole
 * text): `messages` grows as they come, `ended` settles when the server ends the stream (or it is aborted).
 */
export interface SseReader {
  messages: SseMessage[];
  /** Resolved once the response's headers came. */
  opened: Promise<Response>;
  ended: Promise<void>;
  abort(): void;
}

export function readSse(url: string, headers: Record<string, string>): SseReader {
  const ctl = new AbortController();
  const messages: SseMessage[] = [];
  const opened = fetch(url, { headers, signal: ctl.signal });
  const ended = opened.then(async (res) => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const m: { id?: string; event: string; data: string[] } = { event: 'message', data: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'id') m.id = value;
            else if (field === 'event') m.event = value;
            else if (field === 'data') m.data.push(value);
          }
          if (m.data.length) messages.push({ id: m.id, event: m.event, data: JSON.parse(m.data.join('\n')) });
        }
      }
    } catch {
      // aborted
    }
  }, () => {});
  return { messages, opened, ended, abort: () => ctl.abort() };
}
