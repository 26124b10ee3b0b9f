import { SPLIT_MODES } from '../../engines/local/text/split.js';
import { f } from '../fields.js';
import type { ModeDef, ModelDef, OutputSpec } from '../types.js';

/** Text utilities: deterministic code (no model), useful between the model nodes of a workflow. */

const textOut: OutputSpec[] = [{ name: 'output', dataType: 'text' }];
const cheap = { kind: 'flat', microcredits: 500 } as const;

function utility(nodeType: string, name: string, description: string, icon: string, accent: string, mode: Omit<ModeDef, 'category' | 'pricing' | 'timeoutSeconds'>): ModelDef {
  return {
    nodeType, name, description, category: 'utility', icon, accent, provider: 'local',
    modes: [{ ...mode, category: 'text-utility', pricing: cheap, timeoutSeconds: 30 }],
  };
}

export const models: ModelDef[] = [
  utility('text_template', 'Text template', 'Fills a template\'s {{ placeholders }} from text inputs and a JSON object of variables; dotted paths reach nested values and pipes transform them ({{ name | upper }}). Plain substitution, no code runs.', 'braces', 'slate', {
    subModelId: 'text-template', label: 'Fill a template',
    fields: [
      f.text('template', 'Template text with {{ text }}, {{ text_2 }}, {{ text_3 }} or {{ variable.path }} placeholders; filters: upper, lower, trim, capitalize, json, length, urlencode', { required: true, maxLength: 20_000, placeholder: 'Write a haiku about {{ text }} for {{ audience | lower }}.' }),
      f.text('text', 'Value of {{ text }}', { maxLength: 100_000 }),
      f.text('text_2', 'Value of {{ text_2 }}', { maxLength: 100_000 }),
      f.text('text_3', 'Value of {{ text_3 }}', { maxLength: 100_000 }),
      f.json('variables', 'A JSON object of more values by name, e.g. {"audience": "children"}'),
      f.select('on_missing', 'A placeholder with no value becomes empty, stays as written, or fails the run', ['empty', 'keep', 'error']),
    ],
    outputs: textOut,
    engine: { engine: 'text-template' },
  }),
  utility('json_extract', 'JSON extract', 'Picks a value out of JSON (or JSON text, such as an LLM answer, even inside a ```json fence) by a path like $.items[0].name, with * wildcards. Returns the value as text and as JSON.', 'braces', 'amber', {
    subModelId: 'json-extract', label: 'Extract a value',
    fields: [
      f.json('json', 'The JSON value, or text holding JSON', { required: true }),
      f.text('path', 'Path to the value: $.a.b[0], a.b.0, $["odd key"], items[-1], items[*].name', { required: true, maxLength: 500, placeholder: '$.items[0].name' }),
      f.select('on_missing', 'When nothing is at the path: fail the run, or return empty text', ['error', 'empty']),
    ],
    outputs: [...textOut, { name: 'value', dataType: 'any' }],
    engine: { engine: 'json-extract' },
  }),
  utility('split_text', 'Split text', 'Splits text into a list: lines, paragraphs, sentences or words (Unicode rules), at a literal separator, or into chunks of at most N characters broken at spaces.', 'scissors', 'sky', {
    subModelId: 'split-text', label: 'Split',
    fields: [
      f.text('text', 'Text to split', { required: true, maxLength: 200_000 }),
      f.select('mode', 'How to split', [...SPLIT_MODES]),
      f.text('separator', 'Separator text for mode "separator" (\\n and \\t are understood)', { default: ',', maxLength: 100, showWhen: { mode: ['separator'] } }),
      f.integer('chunk_size', 'Most characters per chunk, for mode "chunks"', { min: 1, max: 100_000, default: 1000, showWhen: { mode: ['chunks'] } }),
      f.boolean('trim', 'Trim spaces around each part', { default: true }),
      f.boolean('remove_empty', 'Leave out empty parts', { default: true }),
      f.integer('max_items', 'Fail when the text splits into more parts than this', { min: 1, max: 10_000, default: 1000 }),
    ],
    outputs: [...textOut, { name: 'count', dataType: 'number' }],
    engine: { engine: 'text-split' },
  }),
  utility('join_text', 'Join text', 'Joins a list of texts into one, with a separator and an optional prefix and suffix around each item (for bullet lists, CSV lines, prompts).', 'link', 'sky', {
    subModelId: 'join-text', label: 'Join',
    fields: [
      f.json('texts', 'The texts: a list (or JSON text of a list)', { required: true, schema: { type: ['array', 'string'], maxItems: 10_000 } }),
      f.text('separator', 'Put between items (\\n and \\t are understood)', { default: '\\n', maxLength: 100 }),
      f.text('item_prefix', 'Put before each item, e.g. "- "', { maxLength: 100 }),
      f.text('item_suffix', 'Put after each item', { maxLength: 100 }),
      f.boolean('skip_empty', 'Leave out empty items', { default: true }),
    ],
    outputs: textOut,
    engine: { engine: 'text-join' },
  }),
  utility('markdown_to_html', 'Markdown to HTML', 'Converts Markdown (CommonMark/GitHub subset: headings, emphasis, lists, task lists, tables, code, quotes, links, images) to HTML that is safe to embed: raw HTML is escaped and script links are dropped.', 'file-code', 'teal', {
    subModelId: 'markdown-to-html', label: 'Convert',
    fields: [
      f.text('text', 'Markdown text', { required: true, maxLength: 200_000 }),
      f.boolean('full_document', 'Wrap in a complete HTML document', { default: false }),
      f.text('title', 'Title of the full document', { maxLength: 200, showWhen: { full_document: [true] } }),
    ],
    outputs: textOut,
    engine: { engine: 'markdown-html' },
  }),
  utility('word_count', 'Word count', 'Counts words, characters (with and without spaces), sentences, paragraphs and lines by Unicode rules, and estimates reading time at 238 words a minute.', 'hash', 'slate', {
    subModelId: 'word-count', label: 'Count',
    fields: [f.text('text', 'Text to count', { required: true, maxLength: 200_000 })],
    outputs: [
      ...textOut,
      { name: 'words', dataType: 'number' },
      { name: 'characters', dataType: 'number' },
      { name: 'characters_no_spaces', dataType: 'number' },
      { name: 'sentences', dataType: 'number' },
      { name: 'paragraphs', dataType: 'number' },
      { name: 'lines', dataType: 'number' },
      { name: 'reading_time_seconds', dataType: 'number' },
    ],
    engine: { engine: 'word-count' },
  }),
];
