import type { GraphEdgeElement, GraphNodeElement } from '../graphElements.js';
import { html, jsonScript, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField, page, type Notice, type PageContext } from './layout.js';
import { GRAPH_SCRIPTS } from './runPage.js';

interface OwnWorkflow {
  id: string;
  name: string;
  updatedAt: string;
  nodeCount: number;
}

interface SystemWorkflow {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  nodeTypes: string[];
  /** The models' names, in nodeTypes' order. */
  nodeNames?: string[];
}

function duplicateForm(ctx: PageContext, id: string, name: string): Html {
  return html`<form method="post" action="/workflows/${id}/duplicate">${csrfField(ctx)}<button type="submit" class="button small" aria-label="Duplicate ${name}">Duplicate</button></form>`;
}

export function workflowsPage(ctx: PageContext, d: { own: OwnWorkflow[]; system: SystemWorkflow[]; nextCursor: string | null; firstPage: boolean; notice?: Notice }): Html {
  return page(ctx, 'Workflows', html`
<section aria-labelledby="own-title">
  <h2 id="own-title">Your workflows</h2>
  <p><a class="button" href="/workflows/new">New workflow</a></p>
  ${d.own.length === 0 ? html`<p class="empty">None yet. Build one in the editor (New workflow), duplicate a system workflow below, or use the API (<code>POST /v1/workflows</code>).</p>` : html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Your workflows</caption>
    <thead><tr><th scope="col">Name</th><th scope="col" class="num">Nodes</th><th scope="col">Updated</th><th scope="col">Id</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${d.own.map((w) => html`<tr><th scope="row"><a href="/workflows/${w.id}">${w.name}</a></th><td class="num">${w.nodeCount}</td><td>${formatTime(w.updatedAt)}</td><td><code>${w.id}</code></td><td><a class="button small" href="/workflows/${w.id}/edit" aria-label="Edit ${w.name}">Edit</a></td></tr>`)}</tbody>
  </table></div>`}
  <nav class="pager" aria-label="Workflow pages">
    ${d.firstPage ? '' : html`<a href="/workflows">First page</a>`}
    ${d.nextCursor ? html`<a href="/workflows?cursor=${d.nextCursor}">More →</a>` : ''}
  </nav>
</section>
<section aria-labelledby="system-title">
  <h2 id="system-title">System workflows</h2>
  <p class="muted">Predefined and read-only; run them by slug (<code>"workflowId": "sound-scene"</code>) or duplicate one to edit your own copy.</p>
  <ul class="cards">${d.system.map((w) => html`<li class="card system-workflow" data-slug="${w.slug}">
    <h3><a href="/workflows/${w.slug}">${w.name}</a></h3>
    <p>${w.description}</p>
    <p class="muted"><span class="badge">${w.category}</span> ${w.nodeTypes.map((t, i) => html`${i ? ', ' : ''}<span title="${t}">${w.nodeNames?.[i] ?? t}</span>`)}</p>
    <div class="row-actions"><a class="button small" href="/workflows/${w.slug}">Open</a><a class="button small ghost" href="/workflows/${w.slug}/edit">View in editor</a>${duplicateForm(ctx, w.id, w.name)}</div>
  </li>`)}</ul>
</section>`, { notice: d.notice });
}

export function workflowPage(ctx: PageContext, d: {
  workflow: { id: string; name: string; description: string; slug?: string; isSystem: boolean; updatedAt: string; requestFields: Array<{ id: string; name: string; type: string; value?: unknown }>; nodes: Array<{ id: string; type: string; label: string | null; subModelId: string | null; data: Record<string, unknown> }> };
  graph: { nodes: GraphNodeElement[]; edges: GraphEdgeElement[] };
  notice?: Notice;
}): Html {
  const w = d.workflow;
  const models = w.nodes.filter((n) => n.type !== 'request' && n.type !== 'response');
  return page(ctx, w.name, html`
<p><a href="/workflows">← All workflows</a></p>
<div class="wf-head">
  <p class="lede">${w.description || html`<span class="muted">No description.</span>`}</p>
  <div class="row-actions">
    ${w.isSystem ? html`<span class="badge">System · ${w.slug}</span>` : html`<span class="badge">Yours</span>`}
    <a class="button small" href="/workflows/${w.slug ?? w.id}/edit">${w.isSystem ? 'View in editor' : 'Edit'}</a>
    ${duplicateForm(ctx, w.id, w.name)}
  </div>
</div>
<dl class="facts">
  <div><dt>Id</dt><dd><code>${w.id}</code></dd></div>
  <div><dt>Updated</dt><dd>${formatTime(w.updatedAt)}</dd></div>
  <div><dt>Run it</dt><dd><code>POST /v1/runs {"workflowId": "${w.slug ?? w.id}"}</code></dd></div>
</dl>
<section aria-labelledby="graph-title">
  <h2 id="graph-title">Graph</h2>
  <div id="graph" class="graph" role="img" aria-label="Workflow graph; the tables below list its inputs and nodes"></div>
  ${jsonScript('graph-data', d.graph)}
</section>
<section aria-labelledby="fields-title">
  <h2 id="fields-title">Request fields</h2>
  ${w.requestFields.length === 0 ? html`<p class="empty">None.</p>` : html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Default</th></tr></thead>
    <tbody>${w.requestFields.map((f) => html`<tr><th scope="row"><code>${f.id}</code>${f.name !== f.id ? html` (${f.name})` : ''}</th><td>${f.type}</td><td>${f.value === undefined ? html`<span class="muted">—</span>` : html`<code>${JSON.stringify(f.value)}</code>`}</td></tr>`)}</tbody>
  </table></div>`}
</section>
<section aria-labelledby="wf-nodes-title">
  <h2 id="wf-nodes-title">Model nodes</h2>
  ${models.length === 0 ? html`<p class="empty">No model nodes yet.</p>` : html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Node</th><th scope="col">Model</th><th scope="col">Inputs set</th></tr></thead>
    <tbody>${models.map((n) => html`<tr><th scope="row">${n.label ?? n.type} <code class="muted">${n.id}</code></th><td><code>${n.type}</code>${n.subModelId ? html` / <code>${n.subModelId}</code>` : ''}</td><td>${Object.keys(n.data).length ? Object.entries(n.data).map(([k, v], i) => html`${i ? ', ' : ''}<code>${k}=${JSON.stringify(v).slice(0, 60)}</code>`) : html`<span class="muted">defaults</span>`}</td></tr>`)}</tbody>
  </table></div>`}
</section>`, { notice: d.notice, scripts: GRAPH_SCRIPTS });
}
