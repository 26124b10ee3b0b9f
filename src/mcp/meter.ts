import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AppError } from '../errors.js';
import type { KeyService, Principal } from '../keys/service.js';
import { rateHeaders, retryAfterSeconds } from '../keys/rateWindow.js';

/**
 * Counts the calls of one /mcp POST against the key's rate limit. The auth hook counted the HTTP request,
 * which covers its first call; every further JSON-RPC request of a batch, and every further run of a
 * batch_execute, is counted as a request of its own (issue 26: a batch of 100 calls used to cost one).
 * What the key has left after the last count goes into the response's rate-limit headers.
 */
export class CallMeter {
  private coveredByRequest = true;
  private lowest: Principal;
  private retryAfter: number | undefined;

  constructor(
    private readonly keys: KeyService,
    private readonly principal: Principal,
    /** Receives the headers to send whenever a count leaves fewer requests than any before it. */
    private readonly setHeaders: (headers: Record<string, string>) => void,
  ) {
    this.lowest = principal;
  }

  /** Admits one call, or answers the RATE_LIMITED error to give instead of running it. */
  async admit(): Promise<AppError | undefined> {
    if (this.coveredByRequest) {
      this.coveredByRequest = false;
      return undefined;
    }
    const p = await this.keys.countMore(this.principal);
    const left = (x: Principal) => Number(rateHeaders(x.minute, x.day)['X-RateLimit-Remaining']);
    const refused = !p.admitted;
    if (left(p) <= left(this.lowest)) this.lowest = p;
    if (refused) this.retryAfter = Math.max(this.retryAfter ?? 0, retryAfterSeconds(p.minute, p.day, p.nowMs));
    this.setHeaders({ ...rateHeaders(this.lowest.minute, this.lowest.day), ...(this.retryAfter ? { 'Retry-After': String(this.retryAfter) } : {}) });
    if (!refused) return undefined;
    return new AppError('RATE_LIMITED', `Rate limit exceeded: this call was not run; retry in ${this.retryAfter} s`);
  }
}

/** The answer to a call the meter refused: a tool error for tools/call (what a model reads), else a JSON-RPC error. */
function refusal(message: JSONRPCRequest, err: AppError): JSONRPCMessage {
  if (message.method === 'tools/call') {
    return { jsonrpc: '2.0', id: message.id, result: { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}` }] } };
  }
  return { jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `${err.code}: ${err.message}` } };
}

/**
 * Puts the meter in front of a connected transport: each JSON-RPC request goes to the server only once
 * admitted; a refused one is answered at once. Notifications are not calls and pass uncounted.
 */
export function meterTransport(transport: Transport, meter: CallMeter, onError: (err: unknown) => void): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('meterTransport: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message)) return deliver(message, extra);
    meter.admit().then(
      (refused) => (refused ? transport.send(refusal(message, refused)) : deliver(message, extra)),
      (err: unknown) => {
        onError(err);
        return transport.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'Internal error' } });
      },
    ).catch(onError);
  };
}
