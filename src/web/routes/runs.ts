import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { modelRunView, renderOutput } from '../../runs/view.js';
import { workflowRunView } from '../../workflows/runView.js';
import type { Graph } from '../../workflows/types.js';
import { actingPrincipal, pageContext, sendHtml, signedIn } from '../context.js';
import { graphElements, isTerminal, nodeStates, withLabels } from '../graphElements.js';
import { html } from '../html.js';
import { outputBlocks } from '../views/outputs.js';
import { nodeRunPage, workflowRunPage } from '../views/runPage.js';
import { runsPage } from '../views/runs.js';
import { nodeRunState, runListItem, runRecord, type NodeRunState, type RunRecord } from '../runViews.js';

const PAGE = 25;

/**
 * A run of the account, of either kind; 404 for anything else (another account's run included). `row` and
 * `nodeRows` are the services' records, handed on to their own views (runs/view.ts, workflows/runView.ts);
 * the pages read `run` and `nodes`.
 */
type FoundRun = { run: RunRecord; row: any } & ({ kind: 'node' } | { kind: 'workflow'; nodes: NodeRunState[]; nodeRows: any[] });

async function findRun(services: Services, accountId: string, runId: string): Promise<FoundRun> {
  try {
    const row = await services.nodeRuns.get(accountId, runId, 'node');
    return { kind: 'node', run: runRecord(row), row };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
  }
  const { run: row, nodes: nodeRows } = await services.workflowRuns.get(accountId, runId);
  return { kind: 'workflow', run: runRecord(row), row, nodes: nodeRows.map(nodeRunState), nodeRows };
}

/** Recent runs, one run's page (outputs, and the live graph of a workflow run), and its state for live updates. */
export async function runRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/runs', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const cursor = (req.query as Record<string, unknown>).cursor;
    const page = await services.nodeRuns.listAll(actingPrincipal(ctx.user).accountId, typeof cursor === 'string' ? cursor : undefined, PAGE);
    return sendHtml(reply, runsPage(ctx, { runs: page.runs.map(runListItem), nextCursor: page.nextCursor, firstPage: cursor === undefined }));
  });

  app.get('/runs/:runId', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const found = await findRun(services, actingPrincipal(ctx.user).accountId, (req.params as { runId: string }).runId);
    if (found.kind === 'node') return sendHtml(reply, nodeRunPage(ctx, { run: await modelRunView(services.files, found.row) }));

    const { run, nodes } = found;
    const graph: Graph = withLabels((run.graph ?? { nodes: [], edges: [] }) as Graph, (t) => services.catalog.model(t)?.name);
    const view = await workflowRunView(services.files, found.row, found.nodeRows, { details: false });
    const labels = new Map(graph.nodes.map((n) => [n.id, n.label ?? n.type]));
    const workflowId = run.workflowId ?? '';
    const workflowName = await services.workflows.getRow(run.accountId, workflowId).then((w) => w.name as string, () => workflowId);
    const outputs = [];
    for (const [nodeId, handles] of Object.entries(run.output ?? {})) {
      const rendered = await renderOutput(services.files, handles);
      outputs.push(html`<div class="output-node"><h3 class="output-from">From ${labels.get(nodeId) ?? nodeId}</h3>${outputBlocks(rendered.output, rendered.files)}</div>`);
    }
    return sendHtml(reply, workflowRunPage(ctx, {
      run: view,
      workflowName,
      graph: graphElements(graph, { status: run.status, nodeRuns: nodes }),
      nodeRuns: view.nodeRuns.map((n) => ({ ...n, label: labels.get(n.nodeId) ?? n.nodeId })),
      outputs: outputs.length ? html`${outputs}` : html`<p class="empty">No outputs reached the Response node.</p>`,
    }));
  });

  // Polled by the run page while the run goes on (the API's SSE stream stays API-key-only).
  app.get('/runs/:runId/state', { config: { web: 'json' } }, async (req) => {
    const found = await findRun(services, actingPrincipal(signedIn(req).user).accountId, (req.params as { runId: string }).runId);
    const run = found.run;
    const nodes = found.kind === 'workflow' ? found.nodes : [];
    const states = found.kind === 'workflow' ? nodeStates((run.graph ?? { nodes: [], edges: [] }) as Graph, run.status, nodes) : [];
    const charged = isTerminal(run.status) ? Number(run.chargedMicrocredits) : nodes.reduce((s, n) => s + Number(n.chargedMicrocredits), 0);
    return { id: run.id, kind: found.kind, status: run.status, terminal: isTerminal(run.status), actualCredits: charged, nodes: states };
  });
}
