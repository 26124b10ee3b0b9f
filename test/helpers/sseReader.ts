import { createParser } from 'eventsource-parser';
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
    const parser = createParser({
      onEvent: (e) => {
        if (e.data) messages.push({ id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) });
      },
    });
    const dec = new TextDecoder();
    try {
      for await (const chunk of res.body!) parser.feed(dec.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted
    }
  }, () => {});
  return { messages, opened, ended, abort: () => ctl.abort() };
}
