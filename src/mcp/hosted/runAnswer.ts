import { AppError } from '../../errors.js';
import { renderOutput } from '../../files/render.js';
import type { FileView } from '../../files/service.js';
import { modelRunView } from '../../runs/view.js';
import { workflowRunView } from '../../workflows/runView.js';
import type { ToolAnswer } from '../result.js';
import type { ToolContext } from './context.js';
import { RUN_KIND_OF_ACCOUNT } from '../../runs/queries.js';
import { watchStreamedTokens, type ProgressSender } from './runProgress.js';
import { rowOf } from '../../db/typed.js';

/**
 * The hosted MCP answer about a run (docs/api.md "MCP"): structuredContent with runId, status and
 * assets [{ url, … }] beside a text a model reads, which states "Run ID: …", the status and the asset
 * URLs; for a workflow the Response node's output comes first ("Response Output"), then each node's
 * ("Node Outputs"). The facts come from the same views as GET /v1/nodes/runs/{id} and GET /v1/runs/{id}.
 */

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELED']);
export const isTerminal = (status: string) => TERMINAL.has(status);

export type RunType = 'model' | 'workflow';

function asset(f: FileView) {
  return { url: f.url, fileId: f.id, contentType: f.contentType, bytes: f.bytes, ...(f.width !== undefined ? { width: f.width } : {}), ...(f.height !== undefined ? { height: f.height } : {}), ...(f.durationSeconds !== undefined ? { durationSeconds: f.durationSeconds } : {}) };
}

const json = (v: unknown) => JSON.stringify(v, null, 1).replace(/\n\s*/g, ' ');

function statusLine(status: string, progress: number | null | undefined, still: boolean, message?: string | null): string {
  if (!still) return `Status: ${status}`;
  const pct = typeof progress === 'number' ? ` (progress ${Math.round(progress * 100)}%${message ? `: ${message}` : ''})` : '';
  return `Status: ${status}: still running${pct}. Call get_run_status again with this runId to wait for the result.`;
}

/** Which kind a run id is (ids share one namespace); 404 for another account's or an unknown run. */
export async function runTypeOf(ctx: ToolContext, runId: string): Promise<RunType> {
  if (!/^run_[0-9A-Za-z]{1,40}$/.test(runId)) throw new AppError('NOT_FOUND', 'run not found');
  const row = await rowOf<{ kind: string }>(ctx.services.db, RUN_KIND_OF_ACCOUNT, [runId, ctx.accountId]);
  if (!row) throw new AppError('NOT_FOUND', 'run not found');
  return row.kind === 'workflow' ? 'workflow' : 'model';
}

export async function modelRunAnswer(ctx: ToolContext, runId: string): Promise<ToolAnswer> {
  const row = await ctx.services.nodeRuns.get(ctx.accountId, runId);
  // A queued run says where it stands in the queue (issue 29), from the process's shared snapshot.
  const v = await modelRunView(ctx.services.files, row, row.status === 'QUEUED' ? await ctx.services.queuePositions.of(row.id) : undefined);
  const assets = v.files.map(asset);
  const still = !isTerminal(v.status);
  const lines = [
    `Run ID: ${v.id}`,
    statusLine(v.status, v.progress, still, v.progressMessage),
    `Model: ${v.subModelId ?? v.nodeType}`,
    ...(typeof v.queuePosition === 'number' ? [`Queue position: ${v.queuePosition} run(s) ahead${v.estimatedStartAt ? `, expected to start about ${v.estimatedStartAt}` : ''}`] : []),
    ...(v.status === 'COMPLETED' ? [`Credits used: ${v.creditUsed} microcredits`] : [`Estimated credits: ${v.estimatedCredits} microcredits`]),
    ...(assets.length ? ['Assets:', ...assets.map((a) => `- ${a.url} (${a.contentType})`)] : []),
    ...(v.output ? [`Output: ${json(v.output)}`] : []),
    ...(v.error ? [`Error: ${v.userMessage ?? v.error}`] : []),
  ];
  return {
    text: lines.join('\n'),
    structured: {
      runId: v.id, runType: 'model', status: v.status, modelId: v.subModelId ?? v.nodeType, nodeType: v.nodeType, subModelId: v.subModelId,
      assets, output: v.output, progress: v.progress, progressMessage: v.progressMessage,
      creditUsed: v.creditUsed, estimatedCredits: v.estimatedCredits, error: v.error, errorCode: v.errorCode, userMessage: v.userMessage,
      createdAt: v.createdAt, finishedAt: v.finishedAt,
      ...(v.queuePosition !== undefined ? { queuePosition: v.queuePosition, estimatedStartAt: v.estimatedStartAt } : {}),
    },
  };
}

export async function workflowRunAnswer(ctx: ToolContext, runId: string): Promise<ToolAnswer> {
  const { run, nodes } = await ctx.services.workflowRuns.get(ctx.accountId, runId);
  const v = await workflowRunView(ctx.services.files, run, nodes, { details: true });
  // Assets: the files that reached the Response node, else every file a node made (a workflow without
  // wired Response output still produced something the client wants).
  const responseFiles = (await renderOutput(ctx.services.files, run.output ?? null)).files;
  const nodeFiles = (await Promise.all(nodes.map(async (n) => (await renderOutput(ctx.services.files, n.output ?? null)).files))).flat();
  const seen = new Set<string>();
  const assets = (responseFiles.length ? responseFiles : nodeFiles).filter((f) => !seen.has(f.id) && seen.add(f.id)).map(asset);
  const still = !isTerminal(v.status);
  const done = v.nodeRuns.filter((n) => isTerminal(n.status)).length;
  const progress = v.nodeRuns.length ? done / v.nodeRuns.length : v.status === 'COMPLETED' ? 1 : 0;
  const lines = [
    `Run ID: ${v.id}`,
    statusLine(v.status, progress, still),
    `Workflow: ${v.workflowId}`,
    `Credits used: ${v.actualCredits} microcredits (estimated ${v.estimatedCredits})`,
    ...(assets.length ? ['Assets:', ...assets.map((a) => `- ${a.url} (${a.contentType})`)] : []),
    'Response Output:',
    ...(Object.keys(v.outputs).length ? Object.entries(v.outputs).map(([nodeId, out]) => `- ${nodeId}: ${json(out)}`) : ['- (nothing yet)']),
    'Node Outputs:',
    ...v.nodeRuns.map((n) => `- ${n.nodeId} (${n.subModelId ?? n.nodeType}) ${n.status}${n.cached ? ', cached' : ''}: ${n.error ? `error: ${n.error}` : json(n.output ?? null)}`),
    ...(v.error ? [`Error: ${v.error}`] : []),
  ];
  return {
    text: lines.join('\n'),
    structured: {
      runId: v.id, runType: 'workflow', status: v.status, workflowId: v.workflowId, assets, progress,
      responseOutput: v.outputs,
      nodeOutputs: v.nodeRuns.map((n) => ({ nodeId: n.nodeId, nodeType: n.nodeType, subModelId: n.subModelId, status: n.status, cached: n.cached, output: n.output ?? null, error: n.error, creditUsed: n.creditUsed })),
      creditUsed: v.actualCredits, estimatedCredits: v.estimatedCredits, error: v.error, createdAt: v.createdAt, finishedAt: v.finishedAt,
    },
  };
}

/**
 * Waits for the run to end, up to `seconds` (run-end notifications, services.nodeRuns.waitForEnd: no
 * database connection is held while waiting), then answers where it stands.
 */
export async function waitAndAnswer(ctx: ToolContext, runId: string, seconds: number, progress?: ProgressSender): Promise<ToolAnswer> {
  // The kind comes from the run itself (a client's runType may be wrong); an unknown run or another
  // account's is a 404 before any waiting.
  const kind = await runTypeOf(ctx, runId);
  let tokens = 0;
  if (seconds > 0) {
    // Tokens an LLM streams while we wait: MCP progress for a client that asked, and a line of the answer.
    const watch = await watchStreamedTokens(ctx, runId, progress);
    try {
      await ctx.services.nodeRuns.waitForEnd(runId, seconds);
    } finally {
      tokens = watch.stop();
    }
  }
  const answer = kind === 'model' ? await modelRunAnswer(ctx, runId) : await workflowRunAnswer(ctx, runId);
  if (tokens > 0 && !isTerminal(String(answer.structured.status))) {
    answer.text += `\nTokens so far: ${tokens} (streamed while waiting; the whole text comes with the final result)`;
    answer.structured.tokensSoFar = tokens;
  }
  return answer;
}
