import type { User } from '../../accounts/service.js';
import { html, type Html, type HtmlValue } from '../html.js';

/** What every signed-in page knows about its reader. */
export interface PageContext {
  user: User;
  organizations: Array<{ id: string; name: string }>;
  csrfToken: string;
  /** The path being shown, for the active navigation link and to come back to after switching organization. */
  path: string;
}

export interface Notice {
  kind: 'success' | 'error' | 'info';
  text: HtmlValue;
}

const NAV: Array<{ href: string; label: string }> = [
  { href: '/runs', label: 'Runs' },
  { href: '/workflows', label: 'Workflows' },
  { href: '/credits', label: 'Credits' },
  { href: '/settings/api-keys', label: 'API keys' },
  { href: '/settings/webhooks', label: 'Webhooks' },
];

export function csrfField(ctx: { csrfToken: string }): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrfToken}">`;
}

function orgSwitcher(ctx: PageContext): Html | undefined {
  if (ctx.organizations.length === 0) return undefined;
  const active = ctx.user.activeOrgId;
  return html`<form method="post" action="/session/organization" class="org-switcher">
    ${csrfField(ctx)}<input type="hidden" name="next" value="${ctx.path}">
    <label for="org-select">Acting for</label>
    <select id="org-select" name="org">
      <option value="personal"${active === null ? ' selected' : ''}>Personal (${ctx.user.email})</option>
      ${ctx.organizations.map((o) => html`<option value="${o.id}"${o.id === active ? ' selected' : ''}>${o.name}</option>`)}
    </select>
    <button type="submit" class="button small">Switch</button>
  </form>`;
}

export function notice(n: Notice | undefined): Html | undefined {
  if (!n) return undefined;
  return html`<div class="notice notice-${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">${n.text}</div>`;
}

/** The whole document of a signed-in page. */
export function page(ctx: PageContext, title: string, body: HtmlValue, opts: { notice?: Notice; scripts?: string[]; styles?: string[]; mainClass?: string } = {}): Html {
  const nav = NAV.map((n) => {
    const current = ctx.path === n.href || ctx.path.startsWith(`${n.href}/`);
    return html`<li><a href="${n.href}"${current ? html` aria-current="page"` : ''}>${n.label}</a></li>`;
  });
  return document(title, html`
<a class="skip" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/runs">Atelier</a>
  <nav aria-label="Main"><ul>${nav}</ul></nav>
  <div class="account">
    ${orgSwitcher(ctx)}
    <span class="who" title="Signed in as ${ctx.user.email}; balances, runs and API keys act for ${ctx.user.activeOrgName ? html`organization ${ctx.user.activeOrgName}` : 'your personal account'}">${ctx.user.email} · acting for ${ctx.user.activeOrgName ? html`<strong>${ctx.user.activeOrgName}</strong>` : 'personal account'}</span>
    <form method="post" action="/logout">${csrfField(ctx)}<button type="submit" class="button small ghost">Sign out</button></form>
  </div>
</header>
<main id="main" tabindex="-1"${opts.mainClass ? html` class="${opts.mainClass}"` : ''}>
  <h1>${title}</h1>
  ${notice(opts.notice)}
  ${body}
</main>`, opts.scripts, opts.styles);
}

/** The HTML document around any page, signed in or not. Scripts are our own files under /assets. */
export function document(title: string, body: HtmlValue, scripts: string[] = [], styles: string[] = []): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Atelier</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
${styles.map((s) => html`<link rel="stylesheet" href="${s}">`)}
<script src="/assets/app.js" defer></script>
${scripts.map((s) => html`<script src="${s}" defer></script>`)}
</head>
<body>
${body}
</body>
</html>`;
}
