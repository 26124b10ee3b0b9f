import type { Queryable } from '../db/pool.js';
import { CHANNELS, notify, type Notifier } from '../db/notifier.js';
import type { OutputDeltaEvent } from '../contract/webhooks.js';

/**
 * Streamed partial output (an LLM's token text) from the worker that runs the engine to every API process
 * holding a stream of the run, WITHOUT a row per token: deltas are coalesced (the first at once, then at
 * most every `intervalMs` or every `maxTokens` engine chunks) and each batch is one PostgreSQL NOTIFY on
 * CHANNELS.deltas. They are ephemeral: nothing is stored, so a client that was not listening misses them
 * and gets the whole text in the run's final record (docs/api.md "Streamed output").
 */

/** NOTIFY refuses payloads of 8000 bytes or more; this leaves room for the run-id prefix and the JSON around the text. */
export const MAX_NOTIFY_BYTES = 7900;

export interface DeltaSink {
  /** Text the engine just made; sent soon, never blocks the engine. */
  push(text: string): void;
  /** Sends what is pending and resolves once every batch was handed to PostgreSQL (before the run settles). */
  flush(): Promise<void>;
}

export interface DeltaOptions {
  /** The longest a delta waits to be sent with later ones. */
  intervalMs?: number;
  /** Engine chunks (about a token each) that send a batch at once. */
  maxTokens?: number;
}

/**
 * A notification's payload: `<runId>\n<event JSON>`, so a listener skips other runs' deltas without parsing.
 * Text too long for one NOTIFY is cut into several, each with its own index, never inside a surrogate pair.
 */
export function deltaPayloads(runId: string, nodeId: string | undefined, firstIndex: number, text: string, tokens = 0, maxBytes = MAX_NOTIFY_BYTES): string[] {
  const out: string[] = [];
  const encode = (index: number, delta: string) => {
    const event: OutputDeltaEvent = { type: 'run.output.delta', runId, ...(nodeId !== undefined ? { nodeId } : {}), index, delta, tokens };
    return `${runId}\n${JSON.stringify(event)}`;
  };
  let rest = text;
  let index = firstIndex;
  while (rest.length > 0) {
    let take = rest.length;
    let payload = encode(index, rest);
    // Halve until it fits: JSON escapes and multi-byte characters make bytes and characters differ.
    while (Buffer.byteLength(payload) > maxBytes && take > 1) {
      take = Math.ceil(take / 2);
      const code = rest.charCodeAt(take - 1);
      if (code >= 0xd800 && code <= 0xdbff) take++; // keep a surrogate pair whole
      payload = encode(index, rest.slice(0, take));
    }
    out.push(payload);
    rest = rest.slice(take);
    index++;
  }
  return out;
}

/** Reads a payload of deltaPayloads for `runId`, or undefined when it is another run's (or unreadable). */
export function parseDeltaPayload(payload: string, runId: string): OutputDeltaEvent | undefined {
  if (!payload.startsWith(`${runId}\n`)) return undefined;
  try {
    return JSON.parse(payload.slice(runId.length + 1)) as OutputDeltaEvent;
  } catch {
    return undefined;
  }
}

/** The deltas of one engine execution (a standalone run, or one node of a workflow run). */
export class OutputDeltas implements DeltaSink {
  private pending = '';
  private pendingTokens = 0;
  private tokens = 0;
  private index = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Batches go out one after another: PostgreSQL delivers notifications in commit order, so in index order. */
  private chain: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly maxTokens: number;

  constructor(private readonly db: Queryable, private readonly runId: string, private readonly nodeId?: string, opts: DeltaOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 50;
    this.maxTokens = opts.maxTokens ?? 32;
  }

  push(text: string): void {
    if (!text) return;
    this.pending += text;
    this.pendingTokens++;
    this.tokens++;
    // The first delta goes at once (time to first token is what a reader feels); later ones are batched.
    if (this.index === 0 || this.pendingTokens >= this.maxTokens) this.send();
    else this.timer ??= setTimeout(() => this.send(), this.intervalMs);
  }

  flush(): Promise<void> {
    this.send();
    return this.chain;
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    const payloads = deltaPayloads(this.runId, this.nodeId, this.index, this.pending, this.tokens);
    this.index += payloads.length;
    this.pending = '';
    this.pendingTokens = 0;
    for (const p of payloads) {
      // A lost delta costs a reader a few words until the final record: never the run.
      this.chain = this.chain.then(() => notify(this.db, CHANNELS.deltas, p)).catch(() => {});
    }
  }
}

/** Calls `onDelta` with each delta of `runId` (all its nodes) this process hears; returns the unsubscribe. */
export function listenForDeltas(notifier: Notifier, runId: string, onDelta: (d: OutputDeltaEvent) => void): Promise<() => void> {
  return notifier.subscribe(CHANNELS.deltas, (payload) => {
    const d = parseDeltaPayload(payload, runId);
    if (d) onDelta(d);
  });
}

/** One delta as an SSE message: no `id:`, so a client's Last-Event-ID stays the last stored event's. */
export function deltaFrame(d: OutputDeltaEvent): string {
  return `event: run.output.delta\ndata: ${JSON.stringify(d)}\n\n`;
}
