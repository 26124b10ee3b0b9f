import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.js';

/**
 * The API's sockets are bounded (issue 26, finding 7: 5,000 half-open requests were never closed and
 * 20,400 exhausted the process's descriptors, so /healthz failed for everyone):
 * - time-outs: a request's headers must arrive within `headersTimeoutMs`, the whole request within
 *   `requestTimeoutMs`, and an idle kept-alive connection closes after `keepAliveTimeoutMs` (Node checks
 *   them every `connectionsCheckingInterval`, set by `nodeServerOptions`);
 * - a cap of open connections per peer address: past it a new connection is closed at once, before
 *   any byte is read, so one client cannot hold the descriptors every other client needs.
 */

/** What Fastify hands to http.createServer (its `http` option): the header/request time-outs and how often they are checked. Pure. */
export function nodeServerOptions(limits: HttpLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Checked often enough that a connection outlives its time-out by at most a quarter of it (Node's default is 30 s).
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** Counts open connections per peer address and closes those past the cap. Returns the live counts (for tests). */
export function capConnectionsPerAddress(server: Server, perAddress: number): Map<string, number> {
  const open = new Map<string, number>();
  if (perAddress <= 0) return open;
  server.on('connection', (socket: Socket) => {
    const addr = socket.remoteAddress ?? '';
    const n = (open.get(addr) ?? 0) + 1;
    if (n > perAddress) {
      socket.destroy();
      return;
    }
    open.set(addr, n);
    socket.once('close', () => {
      const left = (open.get(addr) ?? 1) - 1;
      if (left <= 0) open.delete(addr);
      else open.set(addr, left);
    });
  });
  return open;
}
