import type { FastifyInstance } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Services } from '../../services.js';
import { buildMcpServer } from '../../mcp/server.js';
import { CallMeter, meterTransport } from '../../mcp/meter.js';
import { wantsProgressStream, widenAccept } from '../../mcp/accept.js';
import { MAX_UPLOAD_BYTES } from '../../files/upload.js';
import { principalOf } from '../plugins/auth.js';
import { AppError } from '../../errors.js';

/**
 * MCP over Streamable HTTP at /mcp (docs/api.md "MCP"), behind the same bearer keys and rate limits
 * as /v1 (config auth: 'required' makes the auth hook apply outside /v1). Stateless: each request gets its
 * own server and transport, so no session state lives in the process and any replica can answer.
 */
export async function mcpRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    config: { auth: 'required' },
    // upload_file carries a file of up to MAX_UPLOAD_BYTES as base64 (4/3 larger) inside the JSON-RPC body.
    bodyLimit: Math.max(services.config.bodyLimitBytes, Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 64 * 1024),
    schema: { hide: true },
    handler: async (req, reply) => {
      const principal = principalOf(req);
      // Stateless mode has no session to stream server-initiated messages on (GET) or to end (DELETE);
      // the MCP spec lets a server answer 405 there, which clients treat as "not offered", instead of
      // holding an idle SSE connection open.
      if (req.method !== 'POST') {
        throw new AppError('METHOD_NOT_ALLOWED', `${req.method} /mcp is not supported: this MCP server is stateless; POST JSON-RPC messages`, { headers: { Allow: 'POST' } });
      }
      const log = (err: unknown) => req.log.error({ err }, 'mcp tool failed');
      // Every call of a JSON-RPC batch counts against the key (src/mcp/meter.ts); the counts' headers go on the answer.
      const meter = new CallMeter(services.keys, principal, (headers) => {
        if (!reply.raw.headersSent) for (const [name, value] of Object.entries(headers)) reply.raw.setHeader(name, value);
      });
      const server = buildMcpServer(services, principal, meter, log);
      // A call that asks for progress (get_run_status streaming tokens) is answered as an event stream.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgressStream(req.raw, req.body) });
      // The transport writes to the raw response itself; Fastify must not send anything after this. Headers
      // the hooks set on the reply (X-Request-Id, rate-limit headers) would be lost, so move them to raw.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        meterTransport(transport, meter, log);
        widenAccept(req.raw);
        await transport.handleRequest(req.raw, reply.raw, req.body);
      } catch (err) {
        req.log.error({ err }, 'mcp request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
        }
      }
    },
  });
}
