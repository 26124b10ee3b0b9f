// Entry of an engine child process (forked by childPool.ts): registers tsx so the TypeScript sources load,
// then child.ts takes the tasks the pool sends. The service's own process never runs engine code.
import { register } from 'tsx/esm/api';

register();
process.env.ATELIER_ENGINE_CHILD = '1';
await import('./child.ts');
