import { EngineInputError, type Engine } from '../../types.js';
import { hasWildcard, parsePath, PathError, select } from './jsonPath.js';
import { asText, parseJsonInput, textOutput } from './values.js';

/** Picks a value out of JSON by path; returns it as text (`output`) and as a JSON value (`value`). */
export const jsonExtractEngine: Engine = {
  id: 'json-extract',
  requirements: [],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const root = parseJsonInput(req.input.json, 'json');
    const path = asText(req.input.path);
    let steps;
    try {
      steps = parsePath(path);
    } catch (e) {
      if (e instanceof PathError) throw new EngineInputError(`bad path: ${e.message}`);
      throw e;
    }
    const found = select(root, steps);
    const many = hasWildcard(steps);
    if (found.length === 0 && !many) {
      if (req.input.on_missing === 'empty') return { output: textOutput(''), value: { kind: 'json', value: null } };
      throw new EngineInputError(`nothing at path "${path}"`);
    }
    const value = many ? found : found[0];
    const text = many ? found.map(asText).join('\n') : asText(value);
    return { output: textOutput(text), value: { kind: 'json', value } };
  },
};
