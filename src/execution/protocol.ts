import type { EngineOutputs, ExecuteRequest, FetchMediaOptions } from '../engines/types.js';
import { EngineError, EngineInputError } from '../engines/types.js';
import { RunFailure, type RunErrorCode } from './failure.js';

/** How a child builds its engines (from the parent's settings). */
export interface EngineSetup {
  modelsDir: string;
  allowPrivateUrls: boolean;
  /** A module exporting `engines` (test-only engines); set by tests, never in production. */
  testEnginesModule?: string;
}

export interface ChildTask {
  taskId: string;
  engineId: string;
  req: ExecuteRequest;
  deadline: number;
  tmpDir: string;
  maxOutputBytes: number;
  setup: EngineSetup;
  /** The worker's engine span as a W3C traceparent while traces are on (tracing/tracing.ts), so the child's spans join its trace. */
  traceparent?: string | null;
}

export type ChildResult = { ok: true; outputs: EngineOutputs } | { ok: false; error: SerializedError };

/**
 * Messages an engine child sends the parent (over its IPC channel): that it listens, a task's progress,
 * logs, media requests and result (with the child's heap size, for the recycle limit).
 */
export type ChildMessage =
  | { t: 'ready' }
  | { t: 'result'; taskId: string; result: ChildResult; heapUsed: number }
  | { t: 'progress'; taskId: string; fraction: number; message?: string }
  | { t: 'delta'; taskId: string; text: string }
  | { t: 'log'; taskId: string; level: 'debug' | 'info' | 'warn'; msg: string; data?: Record<string, unknown> }
  | { t: 'fetchMedia'; taskId: string; id: number; url: string; opts?: FetchMediaOptions };

/** Messages the parent sends a child: a task to run, a fetched medium (or why not), or an abort. */
export type ParentMessage =
  | { t: 'run'; task: ChildTask }
  | { t: 'media'; id: number; bytes?: Uint8Array; contentType?: string; url?: string; error?: SerializedError }
  | { t: 'abort' };

/** An error as it crosses the process boundary (either way). */
export interface SerializedError {
  name: string;
  message: string;
  retryable?: boolean;
  code?: string;
  /** A provider failure's HTTP status, and whether the provider may have acted (engines/remote/http.ts): routing reads them. */
  status?: number;
  maybeActed?: boolean;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) {
    const x = err as Error & { retryable?: unknown; code?: unknown; status?: unknown; maybeActed?: unknown };
    return {
      name: err.name, message: err.message, retryable: x.retryable === true, code: typeof x.code === 'string' ? x.code : undefined,
      ...(typeof x.status === 'number' ? { status: x.status } : {}), ...(typeof x.maybeActed === 'boolean' ? { maybeActed: x.maybeActed } : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}

/** Gives an error its class back on the other side, so input errors still read as input errors. */
export function rebuildError(e: SerializedError): Error {
  if (e.name === 'EngineInputError') return new EngineInputError(e.message, e.code === 'INPUT_TOO_LARGE' ? e.code : undefined);
  if (e.name === 'EngineError') {
    const err = new EngineError(e.message, e.retryable === true);
    // Kept so routing (execution/routing.ts) can tell a provider that refused work from one that may have taken it.
    if (e.status !== undefined) Object.assign(err, { status: e.status });
    if (e.maybeActed !== undefined) Object.assign(err, { maybeActed: e.maybeActed });
    return err;
  }
  if (e.name === 'RunFailure' && e.code) return new RunFailure(e.code as RunErrorCode, e.message);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
