import { EngineInputError, type Engine } from '../../types.js';
import { asText, textOutput, unescapeSeparator } from './values.js';

/** A list from a workflow edge may arrive as an array, as JSON text of an array, or as one text. */
function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') {
    const s = v.trim();
    if (s.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(s);
        if (Array.isArray(parsed)) return parsed;
      } catch { /* plain text that happens to start with "[" */ }
    }
    return [v];
  }
  if (v === undefined || v === null) return [];
  return [v];
}

/** List of texts → one text, with a separator and optional prefix/suffix around each item. */
export const joinTextEngine: Engine = {
  id: 'text-join',
  requirements: [],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const items = asList(req.input.texts).map(asText);
    const skipEmpty = req.input.skip_empty !== false;
    const kept = skipEmpty ? items.filter((s) => s.trim() !== '') : items;
    if (items.length === 0) throw new EngineInputError('texts is empty: give a list of texts to join');
    const separator = unescapeSeparator(asText(req.input.separator ?? '\n'));
    const prefix = unescapeSeparator(asText(req.input.item_prefix ?? ''));
    const suffix = unescapeSeparator(asText(req.input.item_suffix ?? ''));
    return { output: textOutput(kept.map((s) => `${prefix}${s}${suffix}`).join(separator)) };
  },
};
