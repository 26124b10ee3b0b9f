import { randomInt } from 'node:crypto';
import { EngineError } from '../types.js';

/**
 * A ComfyUI workflow template is an API-format prompt graph whose string values may hold placeholders:
 * "{{prompt}}" standing alone is replaced by the input's value with its type kept (a number stays a
 * number); inside a longer string it is interpolated as text. Values come from the run's input, then the
 * binding's defaults; `seed` without a value gets a random one so repeated runs differ.
 */

const WHOLE = /^\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}$/i;
const ANY = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi;

/** Every placeholder name a template uses. */
export function placeholders(template: unknown, out = new Set<string>()): Set<string> {
  if (typeof template === 'string') for (const m of template.matchAll(ANY)) out.add(m[1]!);
  else if (Array.isArray(template)) for (const v of template) placeholders(v, out);
  else if (template && typeof template === 'object') for (const v of Object.values(template)) placeholders(v, out);
  return out;
}

export function fillTemplate(template: unknown, values: Record<string, unknown>): unknown {
  const lookup = (name: string): unknown => {
    if (values[name] !== undefined && values[name] !== null) return values[name];
    if (name === 'seed') return randomInt(0, 2 ** 31 - 1);
    throw new EngineError(`the ComfyUI workflow uses {{${name}}} but the run has no value for it (add it to the model's fields or the binding's defaults)`);
  };
  const seedOnce = new Map<string, unknown>();
  const get = (name: string) => {
    if (!seedOnce.has(name)) seedOnce.set(name, lookup(name));
    return seedOnce.get(name);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v);
      if (whole) return get(whole[1]!);
      return v.replace(ANY, (_m, name: string) => String(get(name)));
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(template);
}
