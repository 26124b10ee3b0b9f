import type { Db } from '../db/pool.js';
import { KeyStreams, type EndStream } from './streams.js';

/**
 * One server's open event streams, owned by its services (src/app/services.ts) rather than held in a
 * route file's module state: each stream's key registration (KeyStreams: the per-key cap and the check
 * that ends a revoked key's streams) and its closer, so that a shutdown ends them all (a client resumes on
 * another process with Last-Event-ID).
 */
export class ServerStreams {
  private readonly keys: KeyStreams;
  private readonly closers = new Set<() => void>();

  constructor(db: Db, opts: { perKey: number; checkMs: number }) {
    this.keys = new KeyStreams(db, opts);
  }

  /** Registers a stream of `holder` (an API key's id or a web session's); 429 past the cap. Returns its release. */
  openFor(holder: string, end: EndStream): Promise<() => void> {
    return this.keys.open(holder, end);
  }

  /** Known to the shutdown from now on. */
  track(close: () => void): void {
    this.closers.add(close);
  }

  untrack(close: () => void): void {
    this.closers.delete(close);
  }

  /** Ends every open stream of this server and stops the key check. */
  endAll(): void {
    this.keys.stop();
    for (const close of [...this.closers]) close();
  }
}
