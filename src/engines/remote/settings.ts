import type { RetryPolicy } from './http.js';

/** Settings every remote adapter takes besides its provider's own (URL, key). */
export interface RemoteCommonSettings {
  /** ATELIER_ALLOW_PRIVATE_URLS: output files may be downloaded from internal addresses. */
  allowPrivate?: boolean;
  retry?: Partial<RetryPolicy>;
  /** First wait between status polls; it grows to maxPollIntervalMs on long jobs. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Limits of one output file download. */
  downloadMaxBytes?: number;
  downloadTimeoutMs?: number;
  /** Time given to a cancel request when a run is aborted. */
  cancelTimeoutMs?: number;
}

export interface ResolvedCommon {
  allowPrivate: boolean;
  retry?: Partial<RetryPolicy>;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  downloadMaxBytes: number;
  downloadTimeoutMs: number;
  cancelTimeoutMs: number;
}

export function resolveCommon(s: RemoteCommonSettings): ResolvedCommon {
  return {
    allowPrivate: s.allowPrivate ?? false,
    retry: s.retry,
    pollIntervalMs: s.pollIntervalMs ?? 1000,
    maxPollIntervalMs: s.maxPollIntervalMs ?? 5000,
    downloadMaxBytes: s.downloadMaxBytes ?? 500 * 1024 * 1024,
    downloadTimeoutMs: s.downloadTimeoutMs ?? 300_000,
    cancelTimeoutMs: s.cancelTimeoutMs ?? 10_000,
  };
}
