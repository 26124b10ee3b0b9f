#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npm ci && npm start` needs no build step.
import { register } from 'tsx/esm/api';

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

register();
await import('../src/cli/main.ts');
