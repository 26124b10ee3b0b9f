import type { IncomingMessage } from 'node:http';

const BOTH = 'application/json, text/event-stream';

/**
 * This server answers every POST with JSON (stateless, no streams; but see wantsProgressStream), so a client that accepts JSON is
 * served whether or not it also lists text/event-stream (curl recipes send `application/json` or nothing).
 * The SDK transport insists on both, so such a request's Accept is widened to both before it reads it;
 * a client that accepts only event streams still gets the SDK's 406.
 */
export function widenAccept(raw: IncomingMessage): void {
  const accept = raw.headers.accept;
  const jsonOk = accept === undefined || accept.trim() === '' || /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);
  if (!jsonOk || (accept !== undefined && /text\/event-stream/i.test(accept) && /application\/json/i.test(accept))) return;
  raw.headers.accept = BOTH;
  // The transport reads rawHeaders too (name, value, name, value, …).
  const rawHeaders = raw.rawHeaders;
  let found = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'accept') {
      rawHeaders[i + 1] = found ? '' : BOTH;
      found = true;
    }
  }
  if (!found) rawHeaders.push('Accept', BOTH);
}

/**
 * Whether a POST asks for progress it can be sent: a tools/call carrying `_meta.progressToken` from a client
 * that accepts event streams. Only such a request is answered as an event stream (progress notifications,
 * then the result); every other answer stays one JSON body.
 */
export function wantsProgressStream(raw: IncomingMessage, body: unknown): boolean {
  const accept = raw.headers.accept;
  if (accept === undefined || !/text\/event-stream/i.test(accept)) return false;
  const calls = Array.isArray(body) ? body : [body];
  return calls.some((m) => {
    const params = m && typeof m === 'object' ? (m as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } }) : undefined;
    const token = params?.params?._meta?.progressToken;
    return params?.method === 'tools/call' && (typeof token === 'string' || typeof token === 'number');
  });
}
