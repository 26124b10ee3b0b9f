import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Services } from '../services.js';
import type { Principal } from '../keys/service.js';
import { registerTools } from './tools.js';

/** An MCP server bound to one authenticated principal; built per request (stateless transport). */
export function buildMcpServer(services: Services, principal: Principal, log: (err: unknown) => void): McpServer {
  const server = new McpServer(
    { name: 'atelier', version: '1.0.0' },
    { instructions: 'Atelier runs generative-AI models. Typical order: search_models, get_model_schema, estimate_credits, get_balance, run_model, get_run.' },
  );
  registerTools(server, services, principal, log);
  return server;
}
