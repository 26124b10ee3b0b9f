import { EngineInputError, type Engine } from '../../types.js';
import { parsePath, PathError, select } from './jsonPath.js';
import { asText, parseJsonInput, textOutput } from './values.js';

/**
 * Fills `{{ name }}` placeholders: `text`, `text_2`, `text_3` (ports for upstream nodes) and the keys of
 * `variables` (dotted paths reach nested values: `{{ user.name }}`). Pipes transform a value:
 * `{{ text | upper | trim }}`. Plain substitution, no code runs.
 */
const FILTERS: Record<string, (s: string) => string> = {
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  trim: (s) => s.trim(),
  capitalize: (s) => s.charAt(0).toUpperCase() + s.slice(1),
  json: (s) => JSON.stringify(s),
  length: (s) => String([...s].length),
  urlencode: (s) => encodeURIComponent(s),
};

export function renderTemplate(template: string, scope: Record<string, unknown>, onMissing: 'empty' | 'keep' | 'error'): string {
  return template.replace(/\{\{([^{}]*)\}\}/g, (whole, inner: string) => {
    const [expr = '', ...filters] = inner.split('|').map((p) => p.trim());
    let values: unknown[];
    try {
      values = select(scope, parsePath(expr));
    } catch (e) {
      if (e instanceof PathError) throw new EngineInputError(`bad placeholder ${whole}: ${e.message}`);
      throw e;
    }
    if (values.length === 0 || values[0] === undefined) {
      if (onMissing === 'error') throw new EngineInputError(`no value for ${whole}`);
      if (onMissing === 'keep') return whole;
      return '';
    }
    let out = asText(values[0]);
    for (const name of filters) {
      const fn = FILTERS[name];
      if (!fn) throw new EngineInputError(`unknown filter "${name}" in ${whole}; known: ${Object.keys(FILTERS).join(', ')}`);
      out = fn(out);
    }
    return out;
  });
}

export const textTemplateEngine: Engine = {
  id: 'text-template',
  requirements: [],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const template = asText(req.input.template);
    const vars = req.input.variables === undefined ? {} : parseJsonInput(req.input.variables, 'variables');
    if (vars === null || typeof vars !== 'object' || Array.isArray(vars)) throw new EngineInputError('variables must be a JSON object of names to values');
    const scope: Record<string, unknown> = { ...(vars as Record<string, unknown>) };
    for (const port of ['text', 'text_2', 'text_3']) if (req.input[port] !== undefined) scope[port] = req.input[port];
    const onMissing = String(req.input.on_missing ?? 'empty') as 'empty' | 'keep' | 'error';
    return { output: textOutput(renderTemplate(template, scope, onMissing)) };
  },
};
