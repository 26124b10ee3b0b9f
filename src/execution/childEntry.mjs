// Entry of an engine child process (forked by childPool.ts). In the compiled tree (build/, scripts/build.mjs)
// child.js sits beside this file and loads as plain JavaScript; beside the sources it registers tsx first.
// The service's own process never runs engine code.
import { existsSync } from 'node:fs';

process.env.ATELIER_ENGINE_CHILD = '1';
if (existsSync(new URL('./child.js', import.meta.url))) {
  await import('./child.js');
} else {
  (await import('tsx/esm/api')).register();
  await import('./child.ts');
}
