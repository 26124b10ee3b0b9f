import { html, type Html } from '../html.js';
import { formatDuration, formatMicrocredits, formatTime } from './format.js';
import { page, type PageContext } from './layout.js';
import type { RunListItem } from '../runViews.js';

export function statusBadge(status: string, opts: { id?: string } = {}): Html {
  return html`<span class="badge status-${status.toLowerCase()}"${opts.id ? html` id="${opts.id}"` : ''} data-status="${status}">${status}</span>`;
}

/** A run's cost as the list shows it: what was charged once it ended, the hold while it runs. */
export function costCell(run: Pick<RunListItem, 'status' | 'estimatedMicrocredits' | 'chargedMicrocredits'>): Html {
  if (run.status === 'COMPLETED' || run.status === 'FAILED' || run.status === 'CANCELED') return html`${formatMicrocredits(run.chargedMicrocredits)}`;
  return html`<span class="muted" title="Reserved; charged when the run completes">≤ ${formatMicrocredits(run.estimatedMicrocredits)}</span>`;
}

/** Workflow runs served (partly) from the node cache say so: all nodes cached, or how many of them. */
export function cachedBadge(run: Pick<RunListItem, 'nodeCount' | 'cachedCount'>): Html | '' {
  const cached = run.cachedCount ?? 0;
  if (cached === 0) return '';
  const all = cached === run.nodeCount;
  return html` <span class="badge cached-badge" data-cached="${all ? 'all' : 'some'}" title="${all ? 'Every node was served from the node cache' : `${cached} of ${run.nodeCount} nodes were served from the node cache`}">${all ? 'cached' : `${cached}/${run.nodeCount} cached`}</span>`;
}

export function runsPage(ctx: PageContext, d: { runs: RunListItem[]; nextCursor: string | null; firstPage: boolean; now?: Date }): Html {
  const rows = d.runs.map((r) => html`<tr data-run-id="${r.id}">
    <th scope="row"><a href="/runs/${r.id}"><code>${r.id}</code></a></th>
    <td>${r.kind === 'workflow' ? html`<span class="kind">Workflow</span> ${r.workflowName ?? r.workflowId}` : html`<span class="kind">Model</span> <code>${r.nodeType}</code>`}</td>
    <td>${statusBadge(r.status)}${cachedBadge(r)}</td>
    <td class="num">${costCell(r)}</td>
    <td class="num">${formatDuration(r.startedAt, r.finishedAt, d.now)}</td>
    <td>${formatTime(r.createdAt)}</td>
  </tr>`);
  return page(ctx, 'Runs', html`
<p class="lede">Model runs and workflow runs of this account, newest first. Costs are in microcredits.</p>
${d.runs.length === 0 ? html`<p class="empty">No runs yet. Start one through the API, e.g. <code>POST /v1/runs</code> with a system workflow from <a href="/workflows">Workflows</a>.</p>` : html`<div class="table-wrap"><table class="runs">
  <caption class="visually-hidden">Recent runs</caption>
  <thead><tr><th scope="col">Run</th><th scope="col">What</th><th scope="col">Status</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Duration</th><th scope="col">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}
<nav class="pager" aria-label="Run pages">
  ${d.firstPage ? '' : html`<a href="/runs">Newest</a>`}
  ${d.nextCursor ? html`<a href="/runs?cursor=${d.nextCursor}">Older runs →</a>` : ''}
</nav>`);
}
