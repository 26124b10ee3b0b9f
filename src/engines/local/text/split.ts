import { EngineInputError, type Engine } from '../../types.js';
import { segments } from './segments.js';
import { asText, textOutput, unescapeSeparator } from './values.js';

export const SPLIT_MODES = ['lines', 'paragraphs', 'sentences', 'words', 'separator', 'chunks'] as const;
type SplitMode = (typeof SPLIT_MODES)[number];

/** Splits into chunks of at most `size` characters, breaking at the last whitespace when there is one. */
function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > size) {
    let cut = rest.lastIndexOf(' ', size);
    const nl = rest.lastIndexOf('\n', size);
    cut = Math.max(cut, nl);
    if (cut <= size / 2) cut = size;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/**
 * Text → list of texts. Sentences and words use the ICU segmenter built into Node (Intl.Segmenter, in
 * pieces: see segments.ts), so
 * abbreviations, CJK text and punctuation are handled by Unicode rules rather than a regex. A separator
 * is literal text, never a regular expression (user regexes could stall the process).
 */
export function splitText(text: string, mode: SplitMode, opts: { separator?: string; chunkSize?: number; trim: boolean; removeEmpty: boolean }): string[] {
  let parts: string[];
  switch (mode) {
    case 'lines':
      parts = text.split(/\r?\n/);
      break;
    case 'paragraphs':
      parts = text.split(/\r?\n[ \t]*\r?\n/);
      break;
    case 'sentences':
      parts = [...segments(text, 'sentence')].map((s) => s.segment);
      break;
    case 'words':
      parts = [...segments(text, 'word')].filter((s) => s.isWordLike).map((s) => s.segment);
      break;
    case 'separator': {
      const sep = unescapeSeparator(opts.separator ?? '');
      if (!sep) throw new EngineInputError('separator is empty: give the text to split at');
      parts = text.split(sep);
      break;
    }
    case 'chunks':
      parts = chunk(text, opts.chunkSize ?? 1000);
      break;
    default:
      throw new EngineInputError(`unknown split mode "${String(mode)}"`);
  }
  if (opts.trim) parts = parts.map((p) => p.trim());
  if (opts.removeEmpty) parts = parts.filter((p) => p.trim() !== '');
  return parts;
}

export const splitTextEngine: Engine = {
  id: 'text-split',
  requirements: [],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const mode = String(req.input.mode ?? 'lines') as SplitMode;
    if (!(SPLIT_MODES as readonly string[]).includes(mode)) throw new EngineInputError(`unknown split mode "${mode}"`);
    const maxItems = Number(req.input.max_items ?? 1000);
    const parts = splitText(asText(req.input.text), mode, {
      separator: req.input.separator === undefined ? undefined : asText(req.input.separator),
      chunkSize: Number(req.input.chunk_size ?? 1000),
      trim: req.input.trim !== false,
      removeEmpty: req.input.remove_empty !== false,
    });
    if (parts.length > maxItems) throw new EngineInputError(`the text splits into ${parts.length} parts, more than max_items (${maxItems})`);
    return { output: parts.map(textOutput), count: { kind: 'number', value: parts.length } };
  },
};
