import type { LedgerRow } from '../../ledger/ledger.js';
import { html, type Html } from '../html.js';
import { formatCredits, formatMicrocredits, formatTime } from './format.js';
import { page, type PageContext } from './layout.js';

const KIND_LABEL: Record<string, string> = {
  grant: 'Grant', subscription_grant: 'Subscription grant', reserve: 'Reserved for a run', capture: 'Charged',
  release: 'Released (refund)', adjustment: 'Adjustment',
};

export interface BalanceView {
  availableBalance: number;
  formatted: string;
  hasActiveSubscription: boolean;
  isOrganization: boolean;
  reservedMicrocredits: number;
}

function signed(n: bigint): Html {
  if (n === 0n) return html`<span class="muted">0</span>`;
  return html`<span class="${n > 0n ? 'plus' : 'minus'}">${n > 0n ? '+' : ''}${formatMicrocredits(n)}</span>`;
}

export function creditsPage(ctx: PageContext, d: { balance: BalanceView; entries: LedgerRow[]; nextCursor: string | null; firstPage: boolean }): Html {
  const b = d.balance;
  const rows = d.entries.map((e) => html`<tr>
    <td>${formatTime(e.createdAt)}</td>
    <td>${KIND_LABEL[e.kind] ?? e.kind}</td>
    <td class="num">${signed(e.postedDelta)}</td>
    <td class="num">${signed(e.reservedDelta)}</td>
    <td>${e.runId ? html`<a href="/runs/${e.runId}"><code>${e.runId}</code></a>` : html`<span class="muted">—</span>`}</td>
    <td>${e.note ?? ''}</td>
  </tr>`);
  return page(ctx, 'Credits', html`
<section class="stats" aria-label="Balance">
  <div class="stat card">
    <span class="stat-label">Available</span>
    <span class="stat-value" id="balance-formatted">${b.formatted}</span>
    <span class="muted">${formatMicrocredits(b.availableBalance)} microcredits</span>
  </div>
  <div class="stat card">
    <span class="stat-label">Reserved by unfinished runs</span>
    <span class="stat-value">${formatCredits(b.reservedMicrocredits)}</span>
    <span class="muted">${formatMicrocredits(b.reservedMicrocredits)} microcredits</span>
  </div>
  <div class="stat card">
    <span class="stat-label">Account</span>
    <span class="stat-value small">${b.isOrganization ? ctx.user.activeOrgName ?? 'Organization' : 'Personal'}</span>
    <span class="muted">${b.hasActiveSubscription ? 'Active subscription' : 'No subscription'}</span>
  </div>
</section>
<p class="muted">1 credit = 1,000,000 microcredits; balances are shown in millions, as the API's <code>formatted</code> field.</p>
<section aria-labelledby="ledger-title">
  <h2 id="ledger-title">Ledger</h2>
  ${d.entries.length === 0 ? html`<p class="empty">No ledger entries yet.</p>` : html`<div class="table-wrap"><table>
    <caption class="visually-hidden">Ledger entries, newest first</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Entry</th><th scope="col" class="num">Balance change</th><th scope="col" class="num">Hold change</th><th scope="col">Run</th><th scope="col">Note</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`}
  <nav class="pager" aria-label="Ledger pages">
    ${d.firstPage ? '' : html`<a href="/credits">Newest</a>`}
    ${d.nextCursor ? html`<a href="/credits?before=${d.nextCursor}">Older entries →</a>` : ''}
  </nav>
</section>`);
}
