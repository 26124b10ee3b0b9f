// Entry of an engine child process (forked by childPool.ts). In the compiled tree (build/, scripts/build.mjs)
// child.js sits beside this file and loads as plain JavaScript. Beside the sources (a service run through tsx,
// as the test suite's in-process servers are) the child still runs the compiled build when it is current and
// ATELIER_DEV is not 1: loading the engines through tsx costs a child about twice the CPU. Otherwise it
// registers tsx and runs the sources.
import { existsSync } from 'node:fs';

process.env.ATELIER_ENGINE_CHILD = '1';
if (existsSync(new URL('./child.js', import.meta.url))) {
  await import('./child.js');
} else if (process.env.ATELIER_DEV !== '1' && (await import('../../scripts/build.mjs')).compiledState() === 'current') {
  await import('../../build/src/execution/child.js');
} else {
  (await import('tsx/esm/api')).register();
  await import('./child.ts');
}
