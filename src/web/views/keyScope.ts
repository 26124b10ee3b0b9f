import type { ApiKeyInfo } from '../../keys/service.js';
import { html, type Html } from '../html.js';

/**
 * A key's scope and spend limits on the API keys pages (issue 29): shown in the table, edited on the key's
 * page. Allow-lists are comma-separated names (empty: any model); limits are microcredits (empty: none).
 */
export interface KeyScopeFormValues {
  role?: string;
  nodeTypes?: string;
  categories?: string;
  providers?: string;
  dayLimit?: string;
  monthLimit?: string;
  totalLimit?: string;
}

const ROLE_LABEL: Record<string, string> = { full: 'Full', 'run-only': 'Run only', 'read-only': 'Read only' };

/** The run priority the key may ask for, which only the operator raises (keys/priority.ts). */
export function priorityNote(k: ApiKeyInfo): Html {
  return html`<small data-max-priority="${k.maxPriority}" title="The highest run priority this key may ask for; the operator sets it (atelier keys set-priority)">Priority up to ${k.maxPriority}${k.maxPriority === 0 ? ' (normal)' : ''}</small>`;
}

export function scopeCell(k: ApiKeyInfo): Html {
  const lists = ([['Models', k.nodeTypes], ['Categories', k.categories], ['Providers', k.providers]] as const).filter(([, v]) => v !== null);
  return html`<span class="badge">${ROLE_LABEL[k.role] ?? k.role}</span>${lists.map(([n, v]) => html`<br><small>${n}: ${v!.join(', ')}</small>`)}${k.budgets.map((b) =>
    html`<br><small data-budget="${b.period}">${b.period === 'total' ? 'Total' : b.period === 'day' ? 'Today' : 'This month'}: ${b.spentMicrocredits.toLocaleString('en')} of ${b.limitMicrocredits.toLocaleString('en')} µc</small>`)}<br>${priorityNote(k)}`;
}

function limitOf(k: ApiKeyInfo, period: string): string {
  const b = k.budgets.find((x) => x.period === period);
  return b ? String(b.limitMicrocredits) : '';
}

export function scopeFields(key: ApiKeyInfo, v: KeyScopeFormValues): Html {
  const role = v.role ?? key.role;
  const text = (name: keyof KeyScopeFormValues, label: string, current: string[] | null, hint: string) => html`<div class="field">
      <label for="${name}">${label} <span class="optional">(optional)</span></label>
      <input id="${name}" name="${name}" maxlength="2000" value="${v[name] ?? (current ?? []).join(', ')}">
      <small>${hint}</small>
    </div>`;
  const limit = (name: keyof KeyScopeFormValues, label: string, period: string) => html`<div class="field">
      <label for="${name}">${label} <span class="optional">(optional)</span></label>
      <input id="${name}" name="${name}" type="number" inputmode="numeric" min="0" max="${Number.MAX_SAFE_INTEGER}" value="${v[name] ?? limitOf(key, period)}">
      <small>Microcredits; empty for no limit. Runs that would pass it are refused (BUDGET_EXCEEDED).</small>
    </div>`;
  return html`<div class="field">
      <label for="role">Role</label>
      <select id="role" name="role">${(['full', 'run-only', 'read-only'] as const).map((r) => html`<option value="${r}"${r === role ? html` selected` : ''}>${ROLE_LABEL[r]}</option>`)}</select>
      <small>Run only: no workflow edits, no webhook secret, no key management. Read only: reads and estimates.</small>
    </div>
    ${text('nodeTypes', 'Allowed models', key.nodeTypes, 'nodeTypes, comma-separated (e.g. espeak_tts); empty allows every model.')}
    ${text('categories', 'Allowed categories', key.categories, 'image, video, audio, llm, utility; empty allows every category.')}
    ${text('providers', 'Allowed providers', key.providers, 'local, fal, replicate, openai, comfyui …; empty allows every provider.')}
    ${limit('dayLimit', 'Spend limit per UTC day', 'day')}
    ${limit('monthLimit', 'Spend limit per UTC month', 'month')}
    ${limit('totalLimit', 'Spend limit in total', 'total')}`;
}

function names(s: string | undefined): string[] | null | undefined {
  if (s === undefined) return undefined;
  const list = s.split(',').map((x) => x.trim()).filter(Boolean);
  return list.length ? list : null;
}

function limit(s: string | undefined): number | null | undefined {
  if (s === undefined) return undefined;
  if (s.trim() === '') return null;
  return /^\d+$/.test(s.trim()) ? Number(s.trim()) : Number.NaN;
}

/** The form's fields as the key service takes them (it validates them). */
export function scopeInputOf(v: KeyScopeFormValues) {
  return {
    role: v.role, nodeTypes: names(v.nodeTypes), categories: names(v.categories), providers: names(v.providers),
    budgets: v.dayLimit === undefined && v.monthLimit === undefined && v.totalLimit === undefined ? undefined
      : { day: limit(v.dayLimit), month: limit(v.monthLimit), total: limit(v.totalLimit) },
  };
}
