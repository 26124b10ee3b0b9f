import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import type { Engine } from '../../types.js';
import { asText, textOutput } from './values.js';

/**
 * Markdown → HTML with markdown-it (CommonMark plus GitHub tables and strikethrough; linear time, so a
 * hostile input cannot stall it), then sanitize-html as a second gate: raw HTML in the input is escaped
 * by the parser, and the sanitizer keeps only the tags the renderer makes and links to http(s), mailto
 * or relative targets — no `javascript:` URL survives, however it is disguised (control characters,
 * entities, case).
 */

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });

// GitHub task items: a list item starting "[ ] " or "[x] " gets a disabled checkbox.
md.core.ruler.after('inline', 'task_items', (state) => {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    const m = first?.type === 'text' ? /^\[([ xX])\] /.exec(first.content) : null;
    if (!first || !m) continue;
    first.content = first.content.slice(4);
    const box = new state.Token('html_inline', '', 0);
    box.content = `<input type="checkbox" disabled${m[1] === ' ' ? '' : ' checked'}> `;
    inline.children!.unshift(box);
  }
});

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'em', 'strong', 's', 'del', 'code', 'pre', 'a', 'img',
    'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'input'],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], ol: ['start'], th: ['style'], td: ['style'], code: ['class'], input: ['type', 'checked', 'disabled'] },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  selfClosing: ['img', 'br', 'hr', 'input'],
};

export function markdownToHtml(markdown: string): string {
  return sanitizeHtml(md.render(markdown), SANITIZE).trimEnd();
}

export const markdownEngine: Engine = {
  id: 'markdown-html',
  requirements: ['npm: markdown-it', 'npm: sanitize-html'],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const body = markdownToHtml(asText(req.input.text));
    if (req.input.full_document !== true) return { output: textOutput(body) };
    const title = escapeHtml(asText(req.input.title ?? '') || 'Document');
    return { output: textOutput(`<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`) };
  },
};
