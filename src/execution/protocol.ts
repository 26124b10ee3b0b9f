import type { FetchMediaOptions } from '../engines/types.js';
import type { SerializedError } from './child.js';

/** Messages an engine child sends the parent while a task runs (over the pool's IPC channel). */
export type ChildMessage =
  | { t: 'hello'; taskId: string; pid: number }
  | { t: 'progress'; taskId: string; fraction: number; message?: string }
  | { t: 'log'; taskId: string; level: 'debug' | 'info' | 'warn'; msg: string; data?: Record<string, unknown> }
  | { t: 'fetchMedia'; taskId: string; id: number; url: string; opts?: FetchMediaOptions };

/** Messages the parent sends a child: a fetched medium (or why not), or an abort. */
export type ParentMessage =
  | { t: 'media'; id: number; bytes?: Uint8Array; contentType?: string; error?: SerializedError }
  | { t: 'abort' };
