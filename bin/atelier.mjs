#!/usr/bin/env node
// Runs the compiled build (build/, made by scripts/build.mjs on `npm ci` and by `npm run build`) when it is
// current, so no transpiler sits in the service's process tree; otherwise, and always with ATELIER_DEV=1
// (`npm run dev`), the TypeScript sources through tsx.
import { compiledState } from '../scripts/build.mjs';

// `serve` owns its stop from the first moment: a SIGINT or SIGTERM that arrives while the sources load is
// kept, and the serve command acts on it once it takes over (src/cli/commands/serve.ts), rather than the
// process dying half-started with its database running.
if (process.argv[2] === 'serve') {
  const early = [];
  const keep = (signal) => early.push(signal);
  process.on('SIGINT', keep);
  process.on('SIGTERM', keep);
  globalThis.atelierEarlySignals = {
    take() {
      process.off('SIGINT', keep);
      process.off('SIGTERM', keep);
      return early;
    },
  };
}

// A TypeScript test engines module (ATELIER_TEST_ENGINES_MODULE, tests only) is loaded through tsx by the
// compiled build too (src/engines/testEnginesModule.ts).
const state = process.env.ATELIER_DEV === '1' ? 'dev' : compiledState();
if (state === 'current') {
  await import('../build/src/cli/main.js');
} else {
  if (state === 'stale') console.error('atelier: build/ is older than the sources; running them through tsx (`npm run build` compiles them)');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
