import type { ApiKeyInfo, CreatedKey, KeyState } from '../../keys/service.js';
import { LIMITS, MAX_KEYS_PER_ACCOUNT } from '../../keys/service.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField, page, type Notice, type PageContext } from './layout.js';
import { priorityNote, scopeCell, scopeFields, type KeyScopeFormValues } from './keyScope.js';

const STATE_LABEL: Record<KeyState, string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

export function stateBadge(state: KeyState): Html {
  return html`<span class="badge badge-${state}">${STATE_LABEL[state]}</span>`;
}

/** What the create form held, to show it again after a refusal. */
export interface KeyFormValues extends KeyScopeFormValues {
  label?: string;
  expiresOn?: string;
  perMinute?: string;
  perDay?: string;
}

function createForm(ctx: PageContext, live: number, values: KeyFormValues, today: string): Html {
  const full = live >= MAX_KEYS_PER_ACCOUNT;
  return html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a key</h2>
  <p class="muted" id="key-count">${live} of ${MAX_KEYS_PER_ACCOUNT} keys in use.</p>
  ${full ? html`<p class="notice notice-error" role="alert" id="key-limit">You hold ${MAX_KEYS_PER_ACCOUNT} keys, the most an account may have. Revoke one to create another.</p>` : ''}
  <form method="post" action="/settings/api-keys" class="grid-form">
    ${csrfField(ctx)}
    <fieldset${full ? html` disabled` : ''}>
      <legend class="visually-hidden">New key</legend>
      <div class="field">
        <label for="label">Label</label>
        <input id="label" name="label" required maxlength="100" value="${values.label ?? ''}" aria-describedby="label-hint">
        <small id="label-hint">A name you recognise, unique among your keys.</small>
      </div>
      <div class="field">
        <label for="expiresOn">Expires on <span class="optional">(optional)</span></label>
        <input id="expiresOn" name="expiresOn" type="date" min="${today}" value="${values.expiresOn ?? ''}" aria-describedby="expires-hint">
        <small id="expires-hint">Stops working at 00:00 UTC that day.</small>
      </div>
      <div class="field">
        <label for="perMinute">Requests per minute <span class="optional">(optional)</span></label>
        <input id="perMinute" name="perMinute" type="number" inputmode="numeric" min="${LIMITS.perMinute.min}" max="${LIMITS.perMinute.max}" placeholder="${LIMITS.perMinute.default}" value="${values.perMinute ?? ''}" aria-describedby="pm-hint">
        <small id="pm-hint">${LIMITS.perMinute.min} to ${LIMITS.perMinute.max.toLocaleString('en')}; default ${LIMITS.perMinute.default}.</small>
      </div>
      <div class="field">
        <label for="perDay">Requests per day <span class="optional">(optional)</span></label>
        <input id="perDay" name="perDay" type="number" inputmode="numeric" min="${LIMITS.perDay.min}" max="${LIMITS.perDay.max}" placeholder="${LIMITS.perDay.default}" value="${values.perDay ?? ''}" aria-describedby="pd-hint">
        <small id="pd-hint">${LIMITS.perDay.min} to ${LIMITS.perDay.max.toLocaleString('en')}; default ${LIMITS.perDay.default.toLocaleString('en')}.</small>
      </div>
      <div class="actions"><button type="submit" class="button primary">Create key</button></div>
    </fieldset>
  </form>
</section>`;
}

function createdPanel(key: CreatedKey): Html {
  return html`<section class="card created-key" aria-labelledby="created-title">
  <h2 id="created-title">Your new key “${key.label}”</h2>
  <p><strong>Copy it now: you will not see it again.</strong> Atelier keeps only a hash of it. If you lose it, revoke it and create another.</p>
  <div class="copy-row">
    <label for="new-key" class="visually-hidden">New API key</label>
    <input id="new-key" class="mono" readonly value="${key.key}" spellcheck="false" autocomplete="off">
    <button type="button" class="button" data-copy="#new-key">Copy</button>
  </div>
</section>`;
}

function keyRow(ctx: PageContext, k: ApiKeyInfo): Html {
  const usable = k.state !== 'revoked';
  return html`<tr data-key-id="${k.id}" data-state="${k.state}">
  <th scope="row">${k.label}</th>
  <td><code>${k.prefix}…</code></td>
  <td>${formatTime(k.createdAt)}</td>
  <td>${k.expiresAt ? formatTime(k.expiresAt) : html`<span class="muted">never</span>`}</td>
  <td class="num">${k.rateLimitPerMinute.toLocaleString('en')}</td>
  <td class="num">${k.rateLimitPerDay.toLocaleString('en')}</td>
  <td>${k.lastUsedAt ? formatTime(k.lastUsedAt) : html`<span class="muted">never</span>`}</td>
  <td>${stateBadge(k.state)}</td>
  <td class="scope">${scopeCell(k)}</td>
  <td><div class="row-actions">${usable ? html`
    <a class="button small" href="/settings/api-keys/${k.id}/edit" aria-label="Edit ${k.label}">Edit</a>
    <form method="post" action="/settings/api-keys/${k.id}/revoke" data-confirm="Revoke the key “${k.label}”? Every request made with it will be refused (401) from now on. This cannot be undone.">
      ${csrfField(ctx)}<button type="submit" class="button small danger" aria-label="Revoke ${k.label}">Revoke</button>
    </form>` : ''}</div></td>
</tr>`;
}

export function apiKeysPage(ctx: PageContext, d: { keys: ApiKeyInfo[]; created?: CreatedKey; values?: KeyFormValues; notice?: Notice; now?: Date }): Html {
  const live = d.keys.filter((k) => k.state !== 'revoked').length;
  const today = (d.now ?? new Date()).toISOString().slice(0, 10);
  const table = d.keys.length === 0
    ? html`<p class="empty">No keys yet. Create one above to call the API.</p>`
    : html`<div class="table-wrap"><table class="keys">
  <caption class="visually-hidden">Your API keys</caption>
  <thead><tr><th scope="col">Label</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col" class="num">Per minute</th><th scope="col" class="num">Per day</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col">Scope, spend and priority</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${d.keys.map((k) => keyRow(ctx, k))}</tbody>
</table></div>`;
  return page(ctx, 'API keys', html`
<p class="lede">Keys authenticate requests to the API (<code>Authorization: Bearer gx_…</code>). They belong to you and act for the account you have selected${ctx.user.activeOrgName ? html` (now <strong>${ctx.user.activeOrgName}</strong>)` : ''}.</p>
${d.created ? createdPanel(d.created) : ''}
${createForm(ctx, live, d.values ?? {}, today)}
<section aria-labelledby="keys-title">
  <h2 id="keys-title">Your keys</h2>
  ${table}
</section>`, { notice: d.notice });
}

export function editKeyPage(ctx: PageContext, key: ApiKeyInfo, d: { values?: KeyFormValues; notice?: Notice } = {}): Html {
  const v = d.values ?? {};
  return page(ctx, `Edit key “${key.label}”`, html`
<p><a href="/settings/api-keys">← All keys</a></p>
<section class="card">
  <p><code>${key.prefix}…</code> ${stateBadge(key.state)} · created ${formatTime(key.createdAt)}${key.expiresAt ? html` · expires ${formatTime(key.expiresAt)}` : ''}</p>
  <p>${priorityNote(key)} <small class="muted">— set by the operator (<code>atelier keys set-priority</code>).</small></p>
  <form method="post" action="/settings/api-keys/${key.id}" class="grid-form">
    ${csrfField(ctx)}
    <div class="field">
      <label for="label">Label</label>
      <input id="label" name="label" required maxlength="100" value="${v.label ?? key.label}">
    </div>
    <div class="field">
      <label for="perMinute">Requests per minute</label>
      <input id="perMinute" name="perMinute" type="number" inputmode="numeric" required min="${LIMITS.perMinute.min}" max="${LIMITS.perMinute.max}" value="${v.perMinute ?? key.rateLimitPerMinute}">
      <small>${LIMITS.perMinute.min} to ${LIMITS.perMinute.max.toLocaleString('en')}</small>
    </div>
    <div class="field">
      <label for="perDay">Requests per day</label>
      <input id="perDay" name="perDay" type="number" inputmode="numeric" required min="${LIMITS.perDay.min}" max="${LIMITS.perDay.max}" value="${v.perDay ?? key.rateLimitPerDay}">
      <small>${LIMITS.perDay.min} to ${LIMITS.perDay.max.toLocaleString('en')}</small>
    </div>
    ${scopeFields(key, v)}
    <div class="actions"><button type="submit" class="button primary">Save</button> <a class="button ghost" href="/settings/api-keys">Cancel</a></div>
  </form>
</section>`, { notice: d.notice });
}
