#!/usr/bin/env node
// The compiled build: TypeScript in src/ (and the SDK sources the CLI imports) compiled by tsc
// (tsconfig.build.json) into build/, the non-TypeScript files beside them copied over (SQL migrations, .mjs
// entry points, JSON data, the web app's public files), then the workflow editor bundle (build-editor.mjs).
// `npm start` runs build/ when it is current (bin/atelier.mjs), so no transpiler sits in the service's process
// tree. Runs on `npm ci` (postinstall) and as `npm run build`. Without TypeScript installed
// (`npm ci --omit=dev`) the compile is skipped and the sources run through tsx, as before.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_DIR = path.join(root, 'build');
const STAMP = path.join(BUILD_DIR, '.built');
// Folders compiled; the editor is bundled separately by Vite, not by tsc.
const SOURCES = ['src', 'packages/sdk/src'];
const NOT_COMPILED = [path.join(root, 'src/web/editor')];

function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (NOT_COMPILED.includes(p)) continue;
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/**
 * Whether build/ holds the current sources: built, and no source file changed since. A stale build is never
 * run (a developer's edit would silently not take effect); the caller falls back to the sources through tsx.
 */
export function compiledState() {
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return 'absent';
  }
  for (const dir of SOURCES) {
    const abs = path.join(root, dir);
    if (!fs.existsSync(abs)) continue;
    for (const f of files(abs)) if (fs.statSync(f).mtimeMs > built) return 'stale';
  }
  return 'current';
}

function compile() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.warn('atelier build: TypeScript is not installed (npm ci --omit=dev?); the sources will run through tsx');
    return false;
  }
  fs.rmSync(STAMP, { force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  // tsc emits even when a type is wrong; the type check itself is `npm run typecheck`, so only a failure to
  // emit (status 1 with nothing written) stops the build.
  if (r.status !== 0 && !fs.existsSync(path.join(BUILD_DIR, 'src/cli/main.js'))) throw new Error('tsc failed to emit build/');
  for (const dir of SOURCES) {
    for (const f of files(path.join(root, dir))) {
      if (f.endsWith('.ts') || f.endsWith('.tsx')) continue;
      const out = path.join(BUILD_DIR, path.relative(root, f));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.copyFileSync(f, out);
    }
  }
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The Dockerfile installs the dependencies (a cached layer) before it copies the sources in.
  if (!fs.existsSync(path.join(root, 'src/cli/main.ts'))) {
    console.log('atelier build: no sources yet; skipped');
    process.exit(0);
  }
  const t0 = Date.now();
  const compiled = compile();
  if (compiled) console.log(`atelier build: compiled src/ into build/ in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await (await import('./build-editor.mjs')).ensureEditorBuilt({ quiet: true });
}
