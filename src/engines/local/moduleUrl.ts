/**
 * The URL of the module `relative` names as it is spelled in src (`./render.work.ts`), beside `base` (the
 * caller's `import.meta.url`), with the extension it has at run time: `.js` in the compiled tree (build/,
 * scripts/build.mjs), `.ts` beside the sources run through tsx. Worker threads and inline runs import it.
 */
export function moduleUrl(relative: string, base: string): string {
  return new URL(base.endsWith('.js') ? relative.replace(/\.ts$/, '.js') : relative, base).href;
}
