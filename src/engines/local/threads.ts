import os from 'node:os';
import { Piscina } from 'piscina';

/**
 * Named worker-thread pools that keep CPU-heavy engine work (WASM synthesis, tfjs, ONNX, canvas) off the
 * API's event loop. One pool per engine family bounds that engine's concurrency; threads live on between
 * tasks so models load once per thread.
 */
const pools = new Map<string, Piscina>();
const ENTRY = new URL('./threadEntry.mjs', import.meta.url).href;

export function threadPool(name: string, opts: { maxThreads?: number } = {}): Piscina {
  let pool = pools.get(name);
  if (!pool) {
    const maxThreads = opts.maxThreads ?? Math.max(1, Math.min(2, os.availableParallelism() - 1));
    pool = new Piscina({ filename: ENTRY, minThreads: 0, maxThreads, idleTimeout: 10 * 60_000, concurrentTasksPerWorker: 1 });
    pools.set(name, pool);
  }
  return pool;
}

/**
 * Runs `fn` exported by the module at `moduleUrl` (pass `import.meta.url`-relative URLs) in the named
 * pool. Aborting the signal terminates the task's thread.
 */
export function runInThread<T>(pool: string, moduleUrl: string, fn: string, args: unknown[], opts: { signal?: AbortSignal; maxThreads?: number } = {}): Promise<T> {
  // Inside an engine child process (src/execution/) the work runs on the child's own thread: the child is
  // already off the service's event loop, is killed whole on cancel, and a native add-on (onnxruntime)
  // loads once per process and never has to load again in a fresh thread.
  if (process.env.ATELIER_ENGINE_CHILD === '1') return runInline<T>(moduleUrl, fn, args, opts.signal);
  return threadPool(pool, { maxThreads: opts.maxThreads }).run({ modulePath: moduleUrl, fn, args }, { signal: opts.signal ?? null }) as Promise<T>;
}

export async function closeThreadPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close({ force: true })));
}

async function runInline<T>(moduleUrl: string, fn: string, args: unknown[], signal: AbortSignal | undefined): Promise<T> {
  signal?.throwIfAborted();
  const mod = await import(moduleUrl);
  if (typeof mod[fn] !== 'function') throw new Error(`${moduleUrl} has no export ${fn}`);
  const result = await mod[fn](...args);
  signal?.throwIfAborted();
  return result as T;
}
