// Worker-thread entry for CPU-heavy engine work. Beside the sources it registers tsx so TypeScript modules
// load (in the compiled tree, build/, threads.js sits beside it and the modules are plain JavaScript), then
// calls the named export of the named module. Modules stay loaded between tasks, so a model loaded at module level
// (tfjs, ONNX, a WASM synthesizer) is loaded once per thread and reused.
import { existsSync } from 'node:fs';

if (!existsSync(new URL('./threads.js', import.meta.url))) (await import('tsx/esm/api')).register();

export default async function run({ modulePath, fn, args }) {
  const mod = await import(modulePath);
  if (typeof mod[fn] !== 'function') throw new Error(`${modulePath} has no export ${fn}`);
  return mod[fn](...args);
}
