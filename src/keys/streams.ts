import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { closeStream, countLiveStreams, lockStreamsOf, openStream, pruneStreamsOf, renewAndCheckStreams } from './queries.js';

/**
 * Event streams obey their key. Every API process registers its open SSE streams here, whichever route
 * serves them: the /v1 routes under the API key's id, the web app's (the editor's run events) under the
 * signed-in session's id (`wses_…`), so a session is held to the same cap as a key (issue 26, finding 9):
 * - a cap per key across all processes (a row per open stream in `open_streams`, counted under a
 *   per-key advisory lock; past the cap the open is refused with 429);
 * - every `checkMs` the process renews its rows and asks PostgreSQL which of its streams' keys are still
 *   valid (not revoked, not expired) in one query; the streams of a key that is not end with a final
 *   `error` event. So a revoked or expired key's streams end within seconds, in every process, whichever
 *   process revoked it.
 */

export type EndStream = (reason: { code: 'UNAUTHORIZED'; message: string }) => void;

export class KeyStreams {
  readonly holder = newId('sse');
  private readonly byKey = new Map<string, Map<string, EndStream>>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly db: Db, private readonly opts: { perKey: number; checkMs: number }) {}

  /**
   * Registers a stream of `keyId` (an API key's id, or a web session's), or throws 429 RATE_LIMITED when
   * it has `perKey` open. Returns its release.
   */
  async open(keyId: string, end: EndStream): Promise<() => void> {
    const id = newId('str');
    await this.db.tx(async (tx) => {
      await lockStreamsOf(tx, keyId);
      await pruneStreamsOf(tx, keyId);
      const n = await countLiveStreams(tx, keyId);
      if (n >= this.opts.perKey) {
        const who = keyId.startsWith('wses_') ? 'this session' : 'this API key';
        throw new AppError('RATE_LIMITED', `${who} already has ${n} open event streams (at most ${this.opts.perKey}); close one first`, { headers: { 'retry-after': '5' } });
      }
      await openStream(tx, id, keyId, this.holder);
    });
    let streams = this.byKey.get(keyId);
    if (!streams) this.byKey.set(keyId, (streams = new Map()));
    streams.set(id, end);
    this.timer ??= setInterval(() => void this.check(), this.opts.checkMs).unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const set = this.byKey.get(keyId);
      set?.delete(id);
      if (set?.size === 0) this.byKey.delete(keyId);
      if (this.byKey.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
      closeStream(this.db, id).catch(() => {});
    };
  }

  /** One round trip for every stream of this process: renew, then end the streams of keys no longer valid. */
  async check(): Promise<void> {
    if (this.checking || this.byKey.size === 0) return;
    this.checking = true;
    try {
      const keys = [...this.byKey.keys()];
      const valid = new Set(await renewAndCheckStreams(this.db, this.holder, keys));
      for (const k of keys) {
        if (valid.has(k)) continue;
        const message = k.startsWith('wses_') ? 'the session of this stream has ended (signed out or expired)' : 'the API key of this stream was revoked or has expired';
        for (const end of [...(this.byKey.get(k)?.values() ?? [])]) end({ code: 'UNAUTHORIZED', message });
      }
    } catch {
      // The database is away: streams go on; the next check decides.
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
