import type { EngineOutputs, OutputValue } from '../engines/types.js';

/**
 * Limits every engine child runs under, from the environment (README "Engine processes"). Defaults are
 * safe for one laptop: a run's output is at most 64 MiB, a child's JS heap 1 GiB, its resident memory 4 GiB.
 */
export interface ExecutionLimits {
  /** Largest output of one run, text and files together, in bytes (ATELIER_MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
  /** V8 heap of one engine child, MiB (ATELIER_ENGINE_MEMORY_MB); past it the child dies and the attempt fails. */
  childMemoryMb: number;
  /**
   * Resident memory of one engine child and the programs it started, MiB (ATELIER_ENGINE_RESIDENT_MB; 0 = no
   * cap): native memory (decoded media, onnxruntime, Buffers) is outside the heap limit. Past it the child's
   * group is killed and the run fails ENGINE_OUT_OF_MEMORY, refunded.
   */
  residentMemoryMb: number;
  /** A child whose heap grew past this after a task is replaced before the next (ATELIER_ENGINE_RECYCLE_MB). */
  recycleMemoryMb: number;
  /** Children kept per engine family (ATELIER_ENGINE_CHILDREN). */
  childrenPerFamily: number;
  /** An idle child exits after this long (ATELIER_ENGINE_IDLE_MS); the next run starts a fresh one. */
  idleMs: number;
  /** Attempts a run gets when its engine process dies (ATELIER_ENGINE_CRASH_ATTEMPTS). */
  crashAttempts: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

export function executionLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ExecutionLimits {
  return {
    maxOutputBytes: int(env, 'ATELIER_MAX_OUTPUT_BYTES', 64 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    childMemoryMb: int(env, 'ATELIER_ENGINE_MEMORY_MB', 1024, 64, 65_536),
    residentMemoryMb: int(env, 'ATELIER_ENGINE_RESIDENT_MB', 4096, 0, 1_048_576),
    recycleMemoryMb: int(env, 'ATELIER_ENGINE_RECYCLE_MB', 512, 32, 65_536),
    childrenPerFamily: int(env, 'ATELIER_ENGINE_CHILDREN', 2, 1, 64),
    idleMs: int(env, 'ATELIER_ENGINE_IDLE_MS', 10 * 60_000, 100, 24 * 3_600_000),
    crashAttempts: int(env, 'ATELIER_ENGINE_CRASH_ATTEMPTS', 2, 1, 10),
  };
}

/**
 * Bytes an output takes once stored: UTF-8 text, file bytes, JSON text. Pure but for `fileSize`, which
 * sizes a file output whose bytes stay in a file (`path`, streamed to the store, never read into memory).
 */
export function outputBytes(outputs: EngineOutputs, fileSize?: (path: string) => number): number {
  let total = 0;
  const one = (v: OutputValue): number => {
    switch (v.kind) {
      case 'file': return v.path !== undefined && fileSize ? fileSize(v.path) : v.data.byteLength;
      case 'text': return Buffer.byteLength(v.text);
      case 'number':
      case 'boolean': return 8;
      case 'json': return Buffer.byteLength(JSON.stringify(v.value) ?? '');
    }
  };
  for (const value of Object.values(outputs)) {
    for (const v of Array.isArray(value) ? value : [value]) total += one(v);
  }
  return total;
}
