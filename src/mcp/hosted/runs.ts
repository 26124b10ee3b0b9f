import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { answerCall, type ToolAnswer } from '../result.js';
import { given, type ToolContext } from './context.js';
import { waitAndAnswer } from './runAnswer.js';

const anyObject = z.record(z.string(), z.unknown());
const WF_ID = /^wf_[0-9A-Za-z]{1,40}$/;

type Workflow = Awaited<ReturnType<ToolContext['services']['workflows']['get']>>;

/**
 * A workflow named by id, by name or by slug: the account's own workflows before system ones (a user's
 * workflow called like a system workflow is the one meant). 404 when nothing matches.
 */
export async function findWorkflow(ctx: ToolContext, ref: string, opts: { systemOnly?: boolean } = {}): Promise<Workflow> {
  const wf = ctx.services.workflows;
  const want = ref.trim();
  if (WF_ID.test(want)) {
    const w = await wf.get(ctx.accountId, want);
    if (opts.systemOnly && !w.isSystem) throw new AppError('NOT_FOUND', `${want} is not a system workflow; use start_run`);
    return w;
  }
  const lower = want.toLowerCase();
  if (!opts.systemOnly) {
    // Newest first: of two own workflows with one name, the one changed last.
    for (let cursor: string | undefined, pages = 0; pages < 10; pages++) {
      const page = await wf.list(ctx.accountId, { search: want, cursor, limit: 100 });
      const hit = page.items.find((w) => w.name.toLowerCase() === lower);
      if (hit) return wf.get(ctx.accountId, hit.id);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
  }
  const system = (await wf.systemList()).items.find((w) => w.slug === want || w.name.toLowerCase() === lower);
  if (system) return wf.get(ctx.accountId, system.id);
  throw new AppError('NOT_FOUND', `no workflow "${want}"; list_workflows and list_system_workflows show what there is`);
}

/** The Request fields a run asks for, with their types and current (stored) values. */
function requestFieldsAnswer(w: Workflow): ToolAnswer {
  const fields = w.requestFields.map((f) => ({ id: f.id, name: f.name, type: f.type, ...(f.value !== undefined ? { value: f.value } : {}) }));
  const example = Object.fromEntries(fields.map((f) => [f.id, f.value ?? `<${f.type}>`]));
  return {
    text: [
      `Workflow: ${w.name} (${w.id})`,
      `Request fields (node ${w.requestNodeId}):`,
      ...(fields.length ? fields.map((f) => `- ${f.id} "${f.name}" (${f.type})${f.value !== undefined ? ` = ${JSON.stringify(f.value)}` : ''}`) : ['- none']),
      `Nothing was started. To run it, call start_run again with values, e.g. ${JSON.stringify(example)}.`,
    ].join('\n'),
    structured: { workflowId: w.id, name: w.name, requestNodeId: w.requestNodeId, fields, started: false },
  };
}

/**
 * Run values as POST /v1/runs takes them ({ <requestNodeId>: { <field>: value } }); the flat form
 * { <field>: value } that MCP clients send is put under the Request node.
 */
function runValues(w: Workflow, values: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(values);
  if (w.requestNodeId && keys.length === 1 && keys[0] === w.requestNodeId) return values;
  return w.requestNodeId ? { [w.requestNodeId]: values } : values;
}

async function startAndWait(ctx: ToolContext, w: Workflow, values: Record<string, unknown>, waitSeconds: number | undefined): Promise<ToolAnswer> {
  const { run } = await ctx.services.workflowRuns.create({ accountId: ctx.accountId, keyId: ctx.principal.keyId, scope: ctx.principal.scope, workflowId: w.id, values: runValues(w, values) });
  const bound = ctx.services.config.mcpRunWaitSeconds;
  const a = await waitAndAnswer(ctx, run.id, Math.min(waitSeconds ?? bound, bound));
  return { text: `Started workflow ${w.name}.\n${a.text}`, structured: { ...a.structured, started: true } };
}

export function registerRunTools(server: McpServer, ctx: ToolContext): void {
  const call = (fn: () => Promise<ToolAnswer>) => answerCall(fn, ctx.log);
  const bound = ctx.services.config.mcpRunWaitSeconds;

  server.registerTool('start_run', {
    description: `Run a workflow, named by id or name (yours before system ones). Called with the workflow only, it starts nothing and answers the Request fields with their types and current values; called with values ({ <field id or name>: value }) it starts the run, waits for it (up to ${bound} s) and answers the Response output, each node's output and the asset URLs, or "still running" (then call get_run_status).`,
    inputSchema: {
      workflow: z.string().max(200).optional().describe('Workflow id (wf_…), name or system slug'),
      workflowId: z.string().max(200).optional(),
      values: anyObject.optional(),
      waitSeconds: z.number().int().min(0).max(300).optional(),
    },
  }, (a) => call(async () => {
    const ref = given(a.workflow) ?? given(a.workflowId);
    if (!ref) throw new AppError('VALIDATION_ERROR', 'workflow is required: a workflow id, name or system slug', { details: [{ path: 'workflow', message: 'is required' }] });
    const w = await findWorkflow(ctx, ref);
    if (a.values === undefined) return requestFieldsAnswer(w);
    return startAndWait(ctx, w, a.values, a.waitSeconds);
  }));

  server.registerTool('run_system_workflow', {
    description: `Run a ready-made system workflow by slug or name (list_system_workflows) with values ({ <field>: value }; stored defaults fill the rest). Waits up to ${bound} s like start_run.`,
    inputSchema: {
      slug: z.string().max(200).optional(), workflowId: z.string().max(200).optional(),
      values: anyObject.optional(), waitSeconds: z.number().int().min(0).max(300).optional(),
    },
  }, (a) => call(async () => {
    const ref = given(a.slug) ?? given(a.workflowId);
    if (!ref) throw new AppError('VALIDATION_ERROR', 'slug is required (see list_system_workflows)', { details: [{ path: 'slug', message: 'is required' }] });
    const w = await findWorkflow(ctx, ref, { systemOnly: true });
    return startAndWait(ctx, w, a.values ?? {}, a.waitSeconds);
  }));

  server.registerTool('list_runs', {
    description: 'Your workflow runs, newest first. Filters: workflow (id or name), status (QUEUED, RUNNING, COMPLETED, FAILED, CANCELED), search (run id or workflow name). Pass nextCursor back as cursor for more.',
    inputSchema: {
      workflow: z.string().max(200).optional(), workflowId: z.string().max(200).optional(),
      status: z.string().max(20).optional(), search: z.string().max(200).optional(),
      cursor: z.string().max(500).optional(), limit: z.number().int().min(1).max(100).optional(),
    },
  }, (a) => call(async () => {
    const ref = given(a.workflow) ?? given(a.workflowId);
    const workflowId = ref ? (await findWorkflow(ctx, ref)).id : undefined;
    const status = given(a.status)?.toUpperCase();
    const page = await ctx.services.workflowRuns.list(ctx.accountId, { workflowId, status, search: given(a.search), cursor: given(a.cursor), limit: a.limit ?? 20 });
    const runs = page.runs.map((r) => ({
      runId: r.id as string, status: r.status as string, workflowId: r.workflow_id as string | null,
      createdAt: (r.created_at as Date).toISOString(), finishedAt: r.finished_at ? (r.finished_at as Date).toISOString() : null,
      estimatedCredits: Number(r.estimated_microcredits), creditUsed: Number(r.charged_microcredits), error: r.error as string | null,
    }));
    return {
      text: [`${runs.length} run(s)${page.nextCursor ? `; more with cursor ${page.nextCursor}` : ''}`, ...runs.map((r) => `- Run ID: ${r.runId} ${r.status} (workflow ${r.workflowId}, ${r.createdAt})`)].join('\n'),
      structured: { runs, nextCursor: page.nextCursor },
    };
  }));
}
