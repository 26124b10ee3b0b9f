import type { FileView } from '../../files/service.js';
import type { GraphEdgeElement, GraphNodeElement } from '../graphElements.js';
import { isTerminal } from '../graphElements.js';
import { html, jsonScript, type Html } from '../html.js';
import { formatDuration, formatMicrocredits, formatTime } from './format.js';
import { page, type PageContext } from './layout.js';
import { outputBlocks } from './outputs.js';
import { statusBadge } from './runs.js';

/** Long strings (data: URLs of inputs) are cut so the page stays readable. */
const shorten = (_key: string, v: unknown) => (typeof v === 'string' && v.length > 240 ? `${v.slice(0, 240)}… (${v.length} characters)` : v);

export const GRAPH_SCRIPTS = ['/assets/vendor/cytoscape.min.js', '/assets/graph.js'];

/** The legend of node colours, in words too (colour is never the only signal). */
export function graphLegend(): Html {
  const items = ['PENDING', 'QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED'];
  return html`<ul class="legend" aria-label="Node colours">${items.map((s) => html`<li><span class="swatch status-${s.toLowerCase()}"></span>${s.toLowerCase()}</li>`)}<li><span class="swatch cached"></span>cached (dashed)</li></ul>`;
}

function facts(items: Array<[string, Html | string]>): Html {
  return html`<dl class="facts">${items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

export interface NodeRunRow {
  nodeId: string;
  label: string;
  nodeType: string;
  status: string;
  cached: boolean;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  actualCredits: number;
}

export function workflowRunPage(ctx: PageContext, d: {
  run: { id: string; status: string; workflowId: string; createdAt: string | null; startedAt: string | null; finishedAt: string | null; error: string | null; estimatedCredits: number; actualCredits: number };
  workflowName: string;
  graph: { nodes: GraphNodeElement[]; edges: GraphEdgeElement[] };
  nodeRuns: NodeRunRow[];
  outputs: Html;
}): Html {
  const r = d.run;
  const live = !isTerminal(r.status);
  const nodeRows = d.nodeRuns.map((n) => html`<tr data-node-id="${n.nodeId}">
    <th scope="row">${n.label} <code class="muted">${n.nodeId}</code></th>
    <td><code>${n.nodeType}</code></td>
    <td class="node-status">${statusBadge(n.status)}${n.cached ? html` <span class="badge cached-badge">cached</span>` : ''}</td>
    <td class="num node-cost">${formatMicrocredits(n.actualCredits)}</td>
    <td class="num">${formatDuration(n.startedAt, n.finishedAt)}</td>
    <td class="error-text">${n.error ?? ''}</td>
  </tr>`);
  return page(ctx, `Workflow run`, html`
<div class="run" data-run-id="${r.id}" data-run-status="${r.status}" data-live="${live ? 'true' : 'false'}" data-state-url="/runs/${r.id}/state">
${facts([
    ['Run', html`<code>${r.id}</code>`],
    ['Workflow', html`<a href="/workflows/${r.workflowId}">${d.workflowName}</a>`],
    ['Status', statusBadge(r.status, { id: 'run-status' })],
    ['Cost', html`<span id="run-cost">${formatMicrocredits(r.actualCredits)}</span> <span class="muted">of ${formatMicrocredits(r.estimatedCredits)} estimated</span>`],
    ['Created', formatTime(r.createdAt)],
    ['Duration', formatDuration(r.startedAt, r.finishedAt)],
  ])}
${r.error ? html`<p class="notice notice-error" role="alert">${r.error}</p>` : ''}
<section aria-labelledby="graph-title">
  <h2 id="graph-title">Graph</h2>
  <p class="muted live-note" aria-live="polite" id="live-note">${live ? 'Updating live while the run goes on…' : ''}</p>
  <div id="graph" class="graph" role="img" aria-label="Workflow graph; the node table below lists the same nodes and their statuses"></div>
  ${graphLegend()}
  ${jsonScript('graph-data', d.graph)}
</section>
<section aria-labelledby="nodes-title">
  <h2 id="nodes-title">Nodes</h2>
  <div class="table-wrap"><table id="node-table">
    <thead><tr><th scope="col">Node</th><th scope="col">Model</th><th scope="col">Status</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Duration</th><th scope="col">Error</th></tr></thead>
    <tbody>${nodeRows}</tbody>
  </table></div>
</section>
<section aria-labelledby="outputs-title" id="outputs">
  <h2 id="outputs-title">Outputs</h2>
  ${r.status === 'COMPLETED' ? d.outputs : html`<p class="empty">${live ? 'Outputs appear here when the run completes.' : 'This run produced no outputs.'}</p>`}
</section>
</div>`, { scripts: GRAPH_SCRIPTS });
}

export function nodeRunPage(ctx: PageContext, d: {
  run: { id: string; nodeType: string; subModelId: string | null; status: string; input: unknown; output: Record<string, unknown> | null; files: FileView[]; error: string | null; userMessage: string | null; creditUsed: number; estimatedCredits: number; createdAt: string; startedAt: string | null; finishedAt: string | null; progress: number | null; progressMessage: string | null };
}): Html {
  const r = d.run;
  const live = !isTerminal(r.status);
  return page(ctx, 'Model run', html`
<div class="run" data-run-id="${r.id}" data-run-status="${r.status}" data-live="${live ? 'true' : 'false'}" data-state-url="/runs/${r.id}/state">
${facts([
    ['Run', html`<code>${r.id}</code>`],
    ['Model', html`<code>${r.nodeType}</code>${r.subModelId ? html` / <code>${r.subModelId}</code>` : ''}`],
    ['Status', statusBadge(r.status, { id: 'run-status' })],
    ['Cost', html`<span id="run-cost">${formatMicrocredits(r.creditUsed)}</span> <span class="muted">of ${formatMicrocredits(r.estimatedCredits)} estimated</span>`],
    ['Created', formatTime(r.createdAt)],
    ['Duration', formatDuration(r.startedAt, r.finishedAt)],
  ])}
<p class="muted live-note" aria-live="polite" id="live-note">${live ? 'Updating live while the run goes on…' : ''}</p>
${r.userMessage ? html`<p class="notice notice-${r.status === 'FAILED' ? 'error' : 'info'}" role="status">${r.userMessage}</p>` : ''}
<section aria-labelledby="outputs-title" id="outputs">
  <h2 id="outputs-title">Outputs</h2>
  ${r.status === 'COMPLETED' ? outputBlocks(r.output, r.files) : html`<p class="empty">${live ? 'Outputs appear here when the run completes.' : 'This run produced no outputs.'}</p>`}
</section>
<section aria-labelledby="input-title">
  <h2 id="input-title">Input</h2>
  <pre class="json-output">${JSON.stringify(r.input, shorten, 2)}</pre>
</section>
</div>`, { scripts: ['/assets/graph.js'] });
}
