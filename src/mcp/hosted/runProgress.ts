import { listenForDeltas } from '../../events/outputDeltas.js';
import type { ToolContext } from './context.js';

/** Sends an MCP `notifications/progress` for the request being answered (the client asked with a progressToken). */
export type ProgressSender = (progress: number, message: string) => Promise<void>;

/** What a tool handler of the MCP SDK gets beside its arguments, as far as progress needs it. */
interface RequestExtra {
  _meta?: { progressToken?: string | number };
  sendNotification(n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message?: string } }): Promise<void>;
}

/** A sender for the request's progressToken, or undefined when the client gave none (MCP sends progress only to who asked). */
export function progressSender(extra: RequestExtra): ProgressSender | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, message) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } });
}

/** At most this often a waiting get_run_status tells its client how many tokens came: progress is for people, not a log. */
const EVERY_MS = 250;

/**
 * While get_run_status waits for a run, counts the tokens its engines stream (events/outputDeltas.ts: the
 * same notifications the SSE stream reads, so nothing is stored or polled) and, when the client gave a
 * progressToken, reports them as MCP progress. `stop` ends the watch and answers the tokens seen: per node
 * the latest count (each delta carries the execution's count so far, so a watch begun mid-answer is right).
 */
export async function watchStreamedTokens(ctx: ToolContext, runId: string, send?: ProgressSender): Promise<{ stop(): number }> {
  const perNode = new Map<string, number>();
  const total = () => [...perNode.values()].reduce((a, b) => a + b, 0);
  let sentAt = 0;
  let sent = 0;
  const off = await listenForDeltas(ctx.services.notifier, runId, (d) => {
    perNode.set(d.nodeId ?? '', Math.max(perNode.get(d.nodeId ?? '') ?? 0, d.tokens));
    const now = Date.now();
    const n = total();
    if (!send || n <= sent || (sent > 0 && now - sentAt < EVERY_MS)) return;
    sentAt = now;
    sent = n;
    void send(n, `${n} tokens so far`).catch(() => {});
  });
  return {
    stop() {
      off();
      return total();
    },
  };
}
