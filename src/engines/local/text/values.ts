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
  // Models often wrap JSON in a ```json fence; accept that rather than fail.
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(s);
  try {
    return JSON.parse(fenced ? fenced[1]! : s);
  } catch (e) {
    throw new EngineInputError(`${field} is not valid JSON: ${(e as Error).message}`);
  }
}

export function textOutput(text: string) {
  return { kind: 'text' as const, text };
}
