/**
 * Why an outbound request did not happen or did not finish. One class with a code, so callers (media
 * fetcher, webhook deliverer, provider adapters) can map each failure to their own error kind.
 */
export type OutboundFailure =
  | 'invalid-url'
  | 'scheme'
  | 'insecure'
  | 'blocked-address'
  | 'dns'
  | 'too-many-redirects'
  | 'too-large'
  | 'timeout'
  | 'aborted'
  | 'network';

export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(readonly code: OutboundFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** The guard refused the target (as opposed to the target failing to answer). */
  get refused(): boolean {
    return this.code === 'invalid-url' || this.code === 'scheme' || this.code === 'insecure' || this.code === 'blocked-address';
  }
}
