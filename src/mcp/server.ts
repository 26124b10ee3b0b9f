import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Services } from '../services.js';
import type { Principal } from '../keys/service.js';
import type { CallMeter } from './meter.js';
import { registerTools } from './tools.js';
import { registerGenerationTools } from './hosted/generation.js';
import { registerWorkflowTools } from './hosted/workflows.js';
import { registerRunTools } from './hosted/runs.js';

const INSTRUCTIONS = [
  'Atelier runs generative-AI models and workflows, with the tool set of the hosted Galaxy.ai / Magica MCP server.',
  'Generate: search_tools → get_model_schema → get_pricing → execute_tool { tool_name: "generate", input: { modelId, …inputs } } → get_run_status { runId } (it waits) → structuredContent.assets[].url.',
  'Files for inputs: upload_file. Workflows: list_workflows, create_workflow, add_node, connect_nodes, then start_run (first without values to see its fields, then with values).',
  'Credits are microcredits (1,000,000 = 1 credit): get_balance.',
].join(' ');

/** An MCP server bound to one authenticated principal; built per request (stateless transport). */
export function buildMcpServer(services: Services, principal: Principal, meter: CallMeter, log: (err: unknown) => void): McpServer {
  const server = new McpServer({ name: 'atelier', version: '1.0.0' }, { instructions: INSTRUCTIONS });
  // Atelier's own tools first (get_balance, get_model_schema, list_node_types and list_system_workflows
  // are also hosted names and answer the REST JSON), then the rest of the hosted set.
  registerTools(server, services, principal, log);
  const ctx = { services, principal, accountId: principal.accountId, meter, log };
  registerGenerationTools(server, ctx);
  registerWorkflowTools(server, ctx);
  registerRunTools(server, ctx);
  return server;
}
