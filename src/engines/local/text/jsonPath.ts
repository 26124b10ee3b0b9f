/**
 * A small JSONPath subset for picking values out of JSON: `$.a.b[0]`, `a.b.0`, `$["key with space"]`,
 * `items[-1]` (from the end) and the wildcards `*` / `[*]`. Parsed by hand (no eval, no regex
 * backtracking on user input).
 */
export type PathStep = { key: string } | { index: number } | { wildcard: true };

export class PathError extends Error {}

export function parsePath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  let i = 0;
  const s = path.trim();
  if (s.startsWith('$')) i = 1;
  const readName = () => {
    const start = i;
    while (i < s.length && s[i] !== '.' && s[i] !== '[') i++;
    return s.slice(start, i);
  };
  if (i < s.length && s[i] !== '.' && s[i] !== '[') pushName(readName());
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      const name = readName();
      if (!name) throw new PathError(`empty name at position ${i} of "${path}"`);
      pushName(name);
    } else if (c === '[') {
      const close = findClose(i);
      const inner = s.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ wildcard: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^(['"]).*\1$/s.test(inner)) steps.push({ key: inner.slice(1, -1).replace(/\\(.)/g, '$1') });
      else throw new PathError(`bad bracket "[${inner}]" in "${path}"`);
    } else {
      throw new PathError(`unexpected "${c}" at position ${i} of "${path}"`);
    }
  }
  return steps;

  function pushName(name: string) {
    if (name === '*') steps.push({ wildcard: true });
    else if (/^\d+$/.test(name)) steps.push({ index: Number(name) });
    else steps.push({ key: name });
  }
  function findClose(open: number): number {
    let quote: string | undefined;
    for (let j = open + 1; j < s.length; j++) {
      const ch = s[j]!;
      if (quote) {
        if (ch === '\\') j++;
        else if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ']') return j;
    }
    throw new PathError(`unclosed "[" in "${path}"`);
  }
}

/** All values the path reaches (several only through wildcards). */
export function select(root: unknown, steps: PathStep[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('wildcard' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === 'object') next.push(...Object.values(v));
      } else if ('index' in step) {
        if (Array.isArray(v)) {
          const idx = step.index < 0 ? v.length + step.index : step.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        } else if (v && typeof v === 'object' && Object.hasOwn(v, String(step.index))) {
          next.push((v as Record<string, unknown>)[String(step.index)]);
        }
      } else if (v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step.key)) {
        next.push((v as Record<string, unknown>)[step.key]);
      }
    }
    current = next;
  }
  return current;
}

export function hasWildcard(steps: PathStep[]): boolean {
  return steps.some((s) => 'wildcard' in s);
}
