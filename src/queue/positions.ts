import type { Queryable } from '../db/pool.js';
import { rowsOf } from '../db/typed.js';
import { QUEUE_RANKS } from './queries.js';
import { RUN_QUEUE } from './queue.js';

/** Where a queued run stands: how many waiting jobs start before it, and when it may start. */
export interface QueueStanding {
  /** Jobs that pg-boss would fetch before this run's (0: next); null when it is not (or no longer) waiting. */
  position: number | null;
  /** ISO time the run may start at the queue's recent pace; null until that pace is known. */
  estimatedStartAt: string | null;
}

const UNKNOWN: QueueStanding = { position: null, estimatedStartAt: null };

/**
 * Queue positions from a snapshot of the run queue, shared by every reader of this process (issue 29: not
 * one query per poll per run). The snapshot ranks the first `limit` waiting jobs in pg-boss's fetch order
 * with one query and is taken again only when a reader finds it older than `maxAgeMs`, so however many
 * clients poll however many runs, a process asks at most once per `maxAgeMs`.
 *
 * The pace (jobs leaving the queue per second) is measured between snapshots — runs in the previous
 * snapshot and gone from the next one started (or were canceled) — and smoothed, so an estimate needs no
 * query of its own. Until two snapshots have been compared, estimatedStartAt is null.
 */
export class QueuePositions {
  private ranks = new Map<string, number>();
  private takenAt = 0;
  private taking: Promise<void> | undefined;
  /** Jobs leaving the queue per second (exponentially smoothed); undefined until measured. */
  private pace: number | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly opts: { maxAgeMs?: number; limit?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** The standing of a run whose record says QUEUED. */
  async of(runId: string): Promise<QueueStanding> {
    await this.fresh();
    const position = this.ranks.get(runId);
    if (position === undefined) return UNKNOWN;
    return { position, estimatedStartAt: estimateStart(this.takenAt, position, this.pace) };
  }

  private fresh(): Promise<void> {
    if (this.now() - this.takenAt < (this.opts.maxAgeMs ?? 1000)) return Promise.resolve();
    // One snapshot at a time: readers arriving while it is taken wait for the same one.
    this.taking ??= this.take().finally(() => {
      this.taking = undefined;
    });
    return this.taking;
  }

  private async take(): Promise<void> {
    const rows = await rowsOf<{ run_id: string; ahead: number }>(this.db, QUEUE_RANKS, [RUN_QUEUE, this.opts.limit ?? 10_000]);
    const at = this.now();
    const next = new Map(rows.map((r) => [r.run_id, r.ahead]));
    if (this.takenAt > 0) {
      let left = 0;
      for (const id of this.ranks.keys()) if (!next.has(id)) left++;
      const seconds = (at - this.takenAt) / 1000;
      if (seconds > 0) this.pace = smoothPace(this.pace, left / seconds, seconds);
    }
    this.ranks = next;
    this.takenAt = at;
  }
}

/**
 * The pace after one more measurement: an average weighted toward the recent past (about a minute), so a
 * burst does not swing the estimate and an idle queue's pace decays. Pure.
 */
export function smoothPace(previous: number | undefined, measured: number, seconds: number): number {
  if (previous === undefined) return measured;
  const w = 1 - Math.exp(-seconds / 60);
  return previous + (measured - previous) * w;
}

/** When a run `position` jobs from the head may start: all ahead of it and itself leave at `pace`. Pure. */
export function estimateStart(takenAtMs: number, position: number, pace: number | undefined): string | null {
  if (pace === undefined || !(pace > 0)) return null;
  return new Date(takenAtMs + Math.round(((position + 1) / pace) * 1000)).toISOString();
}
