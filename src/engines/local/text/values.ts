import MarkdownIt from 'markdown-it';
import { EngineInputError } from '../../types.js';

/**
 * Shared input handling of the text utilities. Values reaching them through workflow edges may be text,
 * numbers, JSON values or lists of those, so each helper accepts what an upstream node can send.
 */

/** A value as text: strings as they are, numbers and booleans printed, anything else as JSON. */
export function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'object' && v !== null && 'kind' in v && (v as { kind: unknown }).kind === 'text') return String((v as { text?: unknown }).text ?? '');
  return JSON.stringify(v);
}

/**
 * Turns the two-character escapes people type into a separator field (\n, \t, \r, \\) into the characters
 * they mean; a real newline passes through unchanged.
 */
export function unescapeSeparator(s: string): string {
  return s.replace(/\\([ntr\\])/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[c]!);
}

/** JSON given either as a value or as JSON text (as an LLM or a text port would pass it). */
export function parseJsonInput(v: unknown, field: string): unknown {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  try {
    return JSON.parse(s);
  } catch (e) {
    // Models often wrap JSON in a ```json fence, with prose around it: take the first fenced block that
    // parses (blocks marked json first). markdown-it finds the fences in linear time.
    const fences = fencedBlocks(s);
    for (const block of [...fences.filter((b) => /^json/i.test(b.info)), ...fences.filter((b) => !/^json/i.test(b.info))]) {
      try {
        return JSON.parse(block.content);
      } catch {
        // try the next block
      }
    }
    throw new EngineInputError(`${field} is not valid JSON${fences.length ? ', and no fenced block in it is either' : ''}: ${(e as Error).message}`);
  }
}

const markdown = new MarkdownIt('commonmark');

/** The fenced code blocks of a Markdown text, with their info strings (```json → "json"). */
export function fencedBlocks(text: string): Array<{ info: string; content: string }> {
  if (!text.includes('```') && !text.includes('~~~')) return [];
  return markdown.parse(text, {}).filter((t) => t.type === 'fence').map((t) => ({ info: t.info.trim(), content: t.content }));
}

export function textOutput(text: string) {
  return { kind: 'text' as const, text };
}
