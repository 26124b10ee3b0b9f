/**
 * Opens an event stream (SSE) and collects its text until the server ends it or `abort` is called:
 * `first` is the response as soon as its headers came, `text` everything the stream sent.
 */
export function openEventStream(url: string, headers: Record<string, string>): { first: Promise<Response>; text: Promise<string>; abort(): void } {
  const ctl = new AbortController();
  const first = fetch(url, { headers, signal: ctl.signal });
  const text = first.then(async (res) => {
    let out = '';
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        out += dec.decode(value);
      }
    } catch { /* aborted */ }
    return out;
  });
  return { first, text, abort: () => ctl.abort() };
}
