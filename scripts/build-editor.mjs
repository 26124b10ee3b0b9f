#!/usr/bin/env node
// Builds the web app's workflow editor (src/web/editor, React + @xyflow/react) into dist/editor with Vite.
// Runs on `npm ci` / `npm install` (postinstall), before `npm test`, and at server start when the bundle is
// missing or older than its sources, so a fresh clone needs only `npm ci && npm start`. Skips the build when
// the stamp (a hash of the sources and the library versions) matches. Nothing is fetched at run time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const editorDir = path.join(root, 'src/web/editor');
export const EDITOR_OUT = path.join(root, 'dist/editor');
// Pure modules of the server the editor bundles, so wiring is checked by the API's own validator.
const SHARED = ['src/workflows/validate.ts', 'src/workflows/ports.ts', 'src/workflows/types.ts', 'src/workflows/layout.ts', 'src/catalog/hostedFields.ts'];
const LIBS = ['vite', 'react', 'react-dom', '@xyflow/react', '@dagrejs/dagre'];

function filesUnder(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out.sort();
}

function stamp() {
  const h = crypto.createHash('sha256');
  for (const f of [...filesUnder(editorDir), ...SHARED.map((s) => path.join(root, s)), fileURLToPath(import.meta.url)]) {
    h.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  }
  for (const lib of LIBS) {
    const pkg = path.join(root, 'node_modules', lib, 'package.json');
    h.update(`${lib}@${fs.existsSync(pkg) ? JSON.parse(fs.readFileSync(pkg, 'utf8')).version : 'missing'}\0`);
  }
  return h.digest('hex');
}

export function editorIsCurrent() {
  try {
    return fs.readFileSync(path.join(EDITOR_OUT, '.stamp'), 'utf8') === stamp() && fs.existsSync(path.join(EDITOR_OUT, 'editor.js'));
  } catch {
    return false;
  }
}

/** Builds the editor unless the bundle in dist/editor is current. Returns whether it built. */
export async function ensureEditorBuilt({ quiet = false } = {}) {
  if (editorIsCurrent()) return false;
  const want = stamp();
  const { build } = await import('vite');
  const tmp = `${EDITOR_OUT}.tmp-${process.pid}-${Date.now()}`;
  await build({
    configFile: false,
    root: editorDir,
    publicDir: false,
    logLevel: quiet ? 'error' : 'warn',
    mode: 'production',
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir: tmp,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap: false,
      cssCodeSplit: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: path.join(editorDir, 'main.tsx'),
        // React Flow marks its modules "use client" (a React Server Components hint with no meaning here).
        onwarn(warning, warn) {
          if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
        },
        output: { format: 'iife', entryFileNames: 'editor.js', assetFileNames: 'editor[extname]' },
      },
    },
  });
  fs.writeFileSync(path.join(tmp, '.stamp'), want);
  // Swap in whole: a server reading the old bundle never sees a half-written one.
  fs.rmSync(EDITOR_OUT, { recursive: true, force: true });
  try {
    fs.renameSync(tmp, EDITOR_OUT);
  } catch (err) {
    // Another process finished the same build first.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!editorIsCurrent()) throw err;
  }
  if (!quiet) console.log(`built the workflow editor into ${path.relative(root, EDITOR_OUT)}/`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await ensureEditorBuilt();
}
