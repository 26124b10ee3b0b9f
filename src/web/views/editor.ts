import { html, jsonScript, type Html } from '../html.js';
import { page, type PageContext } from './layout.js';

export const EDITOR_SCRIPTS = ['/assets/editor/editor.js'];
export const EDITOR_STYLES = ['/assets/editor/editor.css'];

/**
 * The editor's page: the usual frame, a mount point and the editor's start-up data as JSON (no inline
 * script, so the strict CSP holds). Without JavaScript the page says so and points at the read-only view.
 */
export function editorPage(ctx: PageContext, d: { title: string; config: { csrfToken: string; workflow: { id: string } | null; requestFieldTypes: string[] } }): Html {
  const back = d.config.workflow ? `/workflows/${d.config.workflow.id}` : '/workflows';
  return page(ctx, d.title, html`
<div id="editor-root" class="editor-root">
  <noscript><p class="notice notice-info">The workflow editor needs JavaScript. <a href="${back}">See the workflow without it</a>.</p></noscript>
</div>
${jsonScript('editor-config', d.config)}`, { scripts: EDITOR_SCRIPTS, styles: EDITOR_STYLES, mainClass: 'editor-main' });
}
