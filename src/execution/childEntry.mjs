// Entry of an engine child process (tinypool child_process runtime): registers tsx so the TypeScript
// sources load, then hands each task to child.ts. The service's own process never runs engine code.
import { register } from 'tsx/esm/api';

register();
process.env.ATELIER_ENGINE_CHILD = '1';
const { default: runTask } = await import('./child.ts');

export default runTask;
