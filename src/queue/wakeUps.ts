/**
 * Which consumer loop a job wake-up goes to (queue.ts). Waking every loop on every NOTIFY made each new job
 * cost one fetch per loop, all but one of them empty (issue 31: 2.7 fetches per job with two loops, and
 * more loops only added empty fetches, which queued on pg-boss's four connections ahead of real ones).
 * Instead a wake-up goes to one idle loop, and a loop that finds a job passes the wake-up on to one more
 * idle loop, since one NOTIFY may stand for several jobs (identical NOTIFYs of a turn are sent once,
 * db/pool.ts): a burst is taken by as many loops as it has jobs, and only the last fetch comes back empty.
 * A busy loop asks again as soon as its job ends. Pure: the caller does the waking.
 */
export class WakeUps {
  private readonly idle = new Set<string>();

  /** A loop that exists and is not handling a job. */
  add(id: string): void {
    this.idle.add(id);
  }

  remove(id: string): void {
    this.idle.delete(id);
  }

  /** A NOTIFY came: the one loop to wake (the longest idle), if any is idle. */
  onNotify(): string | undefined {
    return this.next();
  }

  /** Loop `id` found a job: it is busy now; returns one more idle loop to wake, if any. */
  taken(id: string): string | undefined {
    this.idle.delete(id);
    return this.next();
  }

  /** Loop `id` finished its job (it asks again at once itself). */
  done(id: string): void {
    this.idle.add(id);
  }

  /** Round robin: the first idle loop goes to the back of the line. */
  private next(): string | undefined {
    const first = this.idle.values().next();
    if (first.done) return undefined;
    this.idle.delete(first.value);
    this.idle.add(first.value);
    return first.value;
  }
}
