/**
 * How deeply a JSON text nests arrays and objects, found by one pass over its characters (brackets inside
 * strings do not count). Pure. The body parser refuses texts past a limit before parsing them: every
 * recursive walk over a parsed body (schema validation, JSON.stringify, canonical hashing, the database
 * driver) would otherwise overflow the stack on a few hundred kilobytes of `[[[[…`.
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return max;
}
