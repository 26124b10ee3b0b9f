import type { Engine } from '../../types.js';
import { asText, textOutput } from './values.js';

/**
 * Markdown → HTML for the common CommonMark/GitHub subset: headings, paragraphs and hard breaks,
 * emphasis, strikethrough, inline and fenced code, links, images, autolinks, block quotes, nested
 * lists, task items, tables and rules. Output is safe to embed: raw HTML in the input is escaped, and
 * links keep only http(s), mailto and relative targets (so no `javascript:` URLs).
 */

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function safeUrl(raw: string): string | undefined {
  const url = raw.trim().replace(/^<|>$/g, '');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (scheme && !['http', 'https', 'mailto'].includes(scheme[1]!.toLowerCase())) return undefined;
  return url;
}

/** Inline markup of one block's text. Generated HTML is parked in slots so later rules never touch it. */
export function renderInline(src: string): string {
  const slots: string[] = [];
  const park = (html: string) => `\u0000${slots.push(html) - 1}\u0000`;
  let s = src;
  // Backslash escapes and code spans first: their content is literal.
  s = s.replace(/\\([\\`*_{}[\]()#+\-.!~|<>])/g, (_, c: string) => park(escapeHtml(c)));
  s = s.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _t: string, code: string) => park(`<code>${escapeHtml(code.trim() ? code.replace(/^ (.*) $/s, '$1') : code)}</code>`));
  // Autolinks <https://…> and images/links, whose text gets inline markup of its own. Link text may not
  // contain brackets: that keeps every scan short (an unclosed "[" would otherwise rescan to the end).
  s = s.replace(/<((?:https?:\/\/|mailto:)[^\s<>]+)>/g, (_, url: string) => park(`<a href="${escapeHtml(url)}">${escapeHtml(url.replace(/^mailto:/, ''))}</a>`));
  s = s.replace(/!\[([^[\]]*)\]\(([^()\s]+)(?:\s+"([^"]*)")?\)/g, (whole, alt: string, url: string, title?: string) => {
    const href = safeUrl(url);
    if (!href) return park(escapeHtml(alt));
    return park(`<img src="${escapeHtml(href)}" alt="${escapeHtml(alt)}"${title ? ` title="${escapeHtml(title)}"` : ''}>`);
  });
  s = s.replace(/\[([^[\]]+)\]\(([^()\s]*)(?:\s+"([^"]*)")?\)/g, (_, text: string, url: string, title?: string) => {
    const inner = renderInline(text);
    const href = safeUrl(url);
    if (href === undefined) return park(inner);
    return park(`<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${inner}</a>`);
  });
  s = s.replace(/(^|[\s(])(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g, (_, pre: string, url: string) => `${pre}${park(`<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`)}`);
  // Everything left is text: escape it, then emphasis (markers are not affected by escaping).
  s = escapeHtml(s);
  s = s.replace(/(\*\*\*|___)(?=\S)([^*_]*?\S)\1/g, '<strong><em>$2</em></strong>');
  s = s.replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^\w])__(?=\S)([^_]*?\S)__(?!\w)/g, '$1<strong>$2</strong>');
  s = s.replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, '<em>$1</em>');
  s = s.replace(/\*(?=[^\s*])([^\s*])\*/g, '<em>$1</em>');
  s = s.replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_]|[^\s_])_(?!\w)/g, '$1<em>$2</em>');
  s = s.replace(/~~(?=\S)([^~]*?\S)~~/g, '<del>$1</del>');
  // Hard line breaks: two trailing spaces or a backslash (already parked as an escaped "\").
  s = s.replace(/ {2,}\n/g, '<br>\n');
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => slots[Number(i)]!);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^( {0,12})([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const TABLE_DIVIDER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  const t = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '\\' && t[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (t[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += t[i];
  }
  cells.push(cur.trim());
  return cells;
}

function renderList(lines: string[], start: number): { html: string; next: number } {
  const first = LIST_ITEM.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const startNumber = ordered ? parseInt(first[2]!, 10) : 1;
  const items: string[][] = [];
  let loose = false;
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = LIST_ITEM.exec(line);
    if (m && m[1]!.length === indent && /\d/.test(m[2]!) === ordered) {
      items.push([m[3]!]);
      i++;
      continue;
    }
    if (line.trim() === '') {
      // A blank line ends the list unless the next line continues it (an item or indented content).
      const next = lines[i + 1];
      if (next !== undefined && (/^\s/.test(next) && next.trim() !== '' ? leadingSpaces(next) > indent : isSibling(next))) {
        loose = loose || isSibling(next);
        items.at(-1)!.push('');
        i++;
        continue;
      }
      break;
    }
    if (leadingSpaces(line) > indent) {
      items.at(-1)!.push(line.slice(Math.min(leadingSpaces(line), indent + 2)));
      i++;
      continue;
    }
    if (!startsBlock(line) && items.at(-1)!.at(-1) !== '') {
      items.at(-1)!.push(line.trim()); // lazy continuation of the item's paragraph
      i++;
      continue;
    }
    break;
  }
  const body = items.map((content) => {
    let text = content.join('\n').replace(/\n+$/, '');
    let task = '';
    const box = /^\[([ xX])\][ \t]+/.exec(text);
    if (box) {
      task = `<input type="checkbox" disabled${box[1] === ' ' ? '' : ' checked'}> `;
      text = text.slice(box[0].length);
    }
    const inner = renderBlocks(text.split('\n'));
    // Tight lists show items without paragraph tags.
    const shown = loose ? inner : inner.replace(/^<p>([\s\S]*?)<\/p>/, '$1').replace(/\n<p>([\s\S]*?)<\/p>/g, '\n$1');
    return `<li>${task}${shown.trim()}</li>`;
  });
  const tag = ordered ? 'ol' : 'ul';
  const startAttr = ordered && startNumber !== 1 ? ` start="${startNumber}"` : '';
  return { html: `<${tag}${startAttr}>\n${body.join('\n')}\n</${tag}>`, next: i };

  function isSibling(l: string): boolean {
    const m = LIST_ITEM.exec(l);
    return !!m && m[1]!.length === indent && /\d/.test(m[2]!) === ordered;
  }
}

function leadingSpaces(line: string): number {
  return /^ */.exec(line.replace(/\t/g, '    '))![0].length;
}

export function renderBlocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[i]!)) body.push(lines[i++]!);
      i++;
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(body.join('\n'))}${body.length ? '\n' : ''}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level}>${renderInline(heading[2] ?? '')}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (QUOTE.test(lines[i]!) || body.length)) {
        const q = QUOTE.exec(lines[i]!);
        body.push(q ? q[1]! : lines[i]!);
        i++;
      }
      out.push(`<blockquote>\n${renderBlocks(body)}\n</blockquote>`);
      continue;
    }
    if (LIST_ITEM.exec(line) && leadingSpaces(line) <= 3) {
      const list = renderList(lines, i);
      out.push(list.html);
      i = list.next;
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]!) || (lines[i]!.trim() === '' && /^( {4}|\t)/.test(lines[i + 1] ?? '')))) {
        body.push(lines[i]!.replace(/^( {4}|\t)/, ''));
        i++;
      }
      out.push(`<pre><code>${escapeHtml(body.join('\n'))}\n</code></pre>`);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_DIVIDER.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const head = splitRow(line);
      const aligns = splitRow(lines[i + 1]!).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : ''));
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && lines[i]!.includes('|')) rows.push(splitRow(lines[i++]!));
      const cell = (tag: string, text: string, c: number) => `<${tag}${aligns[c] ? ` style="text-align:${aligns[c]}"` : ''}>${renderInline(text)}</${tag}>`;
      out.push([
        '<table>',
        `<thead>\n<tr>${head.map((h, c) => cell('th', h, c)).join('')}</tr>\n</thead>`,
        rows.length ? `<tbody>\n${rows.map((r) => `<tr>${head.map((_, c) => cell('td', r[c] ?? '', c)).join('')}</tr>`).join('\n')}\n</tbody>` : '',
        '</table>',
      ].filter(Boolean).join('\n'));
      continue;
    }
    // Paragraph, or a setext heading when underlined with === or ---.
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!)) {
      const l = lines[i]!;
      if (/^ {0,3}=+\s*$/.test(l) || /^ {0,3}-+\s*$/.test(l)) break;
      para.push(l.replace(/^\s+/, ''));
      i++;
    }
    const under = lines[i];
    if (under !== undefined && (/^ {0,3}=+\s*$/.test(under) || /^ {0,3}-+\s*$/.test(under))) {
      const level = under.trim().startsWith('=') ? 1 : 2;
      out.push(`<h${level}>${renderInline(para.join('\n'))}</h${level}>`);
      i++;
      continue;
    }
    out.push(`<p>${renderInline(para.join('\n'))}</p>`);
  }
  return out.join('\n');
}

export function markdownToHtml(markdown: string): string {
  return renderBlocks(markdown.replace(/\r\n?/g, '\n').split('\n'));
}

export const markdownEngine: Engine = {
  id: 'markdown-html',
  requirements: [],
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
