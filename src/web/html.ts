/**
 * The one way the web app writes HTML: a tagged template that escapes every interpolated value unless it
 * is already `Html` (the result of another `html` template or of `raw`). Arrays are joined, and null,
 * undefined and false render as nothing, so `${cond && html`…`}` and `${items.map(…)}` read naturally.
 * Pure; nothing here touches a request.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | bigint | boolean | null | undefined | HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  if (value === true) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup, written by us (never user data). */
export function raw(text: string): Html {
  return new Html(text);
}

/** JSON for a `<script type="application/json">` block: `<` is escaped so no value can close the element. */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return html`<script type="application/json" id="${id}">${raw(json)}</script>`;
}
