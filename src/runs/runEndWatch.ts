import { CHANNELS, type Notifier } from '../db/notifier.js';

/** How many recent run ends a process remembers (a few seconds of the highest rate we run at). */
const REMEMBERED = 10_000;

/**
 * The run ends this process has heard of (CHANNELS.runEnded), kept for a waiter that starts after the end
 * came (Prefer: wait on a run that ended before the request began to wait for it). A waiter holding a mark
 * taken before its run was created knows: while the LISTEN connection of that mark is still up, every end
 * of that run reached `ended`, so it need not ask PostgreSQL whether the run ended meanwhile. Without a
 * mark (a replayed creation, the connection lost or not yet listening) the waiter asks as before.
 */
export class RunEndWatch {
  private readonly ended = new Set<string>();
  private watching: Promise<void> | undefined;
  private ready = false;

  constructor(private readonly notifier: Notifier) {}

  /** Taken before a run is created: valid for that run's wait while it is defined and current(). */
  mark(): { epoch: number } | undefined {
    if (!this.watching) this.watching = this.start().catch(() => { this.watching = undefined; });
    return this.ready && this.notifier.listening ? { epoch: this.notifier.epoch } : undefined;
  }

  /** The mark still vouches: the same LISTEN connection has been up since it was taken. */
  current(mark: { epoch: number } | undefined): boolean {
    return mark !== undefined && this.notifier.listening && this.notifier.epoch === mark.epoch;
  }

  has(runId: string): boolean {
    return this.ended.has(runId);
  }

  private async start(): Promise<void> {
    await this.notifier.subscribe(CHANNELS.runEnded, (id) => {
      this.ended.add(id);
      // A Set iterates in insertion order: the first is the oldest.
      if (this.ended.size > REMEMBERED) this.ended.delete(this.ended.values().next().value!);
    });
    this.ready = true;
  }
}
