import type { DeliveryService } from '../../events/deliveries.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField, page, type Notice, type PageContext } from './layout.js';

/** A row of the delivery log, exactly as the delivery service returns it (no second declaration to drift). */
type Delivery = Awaited<ReturnType<DeliveryService['list']>>['items'][number];

function secretSection(ctx: PageContext, secret: string | undefined): Html {
  return html`<section class="card" aria-labelledby="secret-title">
  <h2 id="secret-title">Signing secret</h2>
  <p>Every delivery is signed with this secret (Standard Webhooks: <code>webhook-signature</code> = HMAC-SHA256 of <code>id.timestamp.body</code>). Keep it on your receiver only.</p>
  ${secret === undefined
    ? html`<div class="copy-row"><code class="secret-mask" id="secret-masked">whsec_••••••••••••••••••••</code> <a class="button" href="/settings/webhooks?reveal=1#secret-title">Reveal</a></div>`
    : html`<div class="copy-row"><label for="secret" class="visually-hidden">Webhook signing secret</label><input id="secret" class="mono" readonly value="${secret}" spellcheck="false" autocomplete="off"> <button type="button" class="button" data-copy="#secret">Copy</button> <a class="button ghost" href="/settings/webhooks">Hide</a></div>`}
  <form method="post" action="/settings/webhooks/rotate" class="inline" data-confirm="Rotate the signing secret? Deliveries are signed with both the old and the new secret for 24 hours, so update your receiver within that time.">
    ${csrfField(ctx)}<button type="submit" class="button danger">Rotate secret</button>
    <small class="muted">The old secret keeps signing for 24 hours.</small>
  </form>
</section>`;
}

export function webhooksPage(ctx: PageContext, d: { secret?: string; deliveries: Delivery[]; nextCursor: string | null; status?: string; firstPage: boolean; notice?: Notice }): Html {
  const rows = d.deliveries.map((x) => html`<tr data-delivery-id="${x.id}">
    <td>${formatTime(x.createdAt)}</td>
    <td><code>${x.eventType}</code></td>
    <td><a href="/runs/${x.runId}"><code>${x.runId}</code></a></td>
    <td class="url">${x.url}</td>
    <td><span class="badge delivery-${x.status}">${x.status}</span></td>
    <td class="num">${x.attempts}</td>
    <td class="answer">${x.lastStatusCode ?? ''}${x.lastError ? html` <span class="error-text">${x.lastError}</span>` : ''}</td>
    <td>${x.status === 'pending' ? formatTime(x.nextAttemptAt) : x.deliveredAt ? formatTime(x.deliveredAt) : '—'}</td>
    <td class="actions"><form method="post" action="/settings/webhooks/deliveries/${x.eventId}/replay">${csrfField(ctx)}<button type="submit" class="button small" aria-label="Replay ${x.eventType} of ${x.runId}">Replay</button></form></td>
  </tr>`);
  const statuses = ['pending', 'delivered', 'failed'];
  return page(ctx, 'Webhooks', html`
<p class="lede">Pass <code>"webhook": {"url": "https://…"}</code> when you start a run; its events are delivered here, signed, with retries.</p>
${secretSection(ctx, d.secret)}
<section aria-labelledby="log-title">
  <h2 id="log-title">Delivery log</h2>
  <form method="get" action="/settings/webhooks" class="filter">
    <label for="status">Status</label>
    <select id="status" name="status">
      <option value="">any</option>
      ${statuses.map((s) => html`<option value="${s}"${d.status === s ? ' selected' : ''}>${s}</option>`)}
    </select>
    <button type="submit" class="button small">Filter</button>
  </form>
  ${d.deliveries.length === 0 ? html`<p class="empty">No deliveries${d.status ? html` with status ${d.status}` : ''} yet.</p>` : html`<div class="table-wrap"><table class="deliveries">
    <caption class="visually-hidden">Webhook deliveries, newest first</caption>
    <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Run</th><th scope="col">URL</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Last answer</th><th scope="col">Next / delivered</th><th scope="col" class="actions"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`}
  <nav class="pager" aria-label="Delivery pages">
    ${d.firstPage ? '' : html`<a href="/settings/webhooks${d.status ? `?status=${d.status}` : ''}">Newest</a>`}
    ${d.nextCursor ? html`<a href="/settings/webhooks?cursor=${d.nextCursor}${d.status ? `&status=${d.status}` : ''}">Older →</a>` : ''}
  </nav>
</section>`, { notice: d.notice });
}
