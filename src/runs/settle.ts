import type { Queryable } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { capture, release } from '../ledger/ledger.js';
import { recordEvent } from '../events/outbox.js';
import { runEndEvent } from '../events/runEnd.js';
import * as q from './queries.js';
import type { RouteReport } from '../execution/routing.js';
import { rowOf } from '../db/typed.js';

export type FinalStatus = 'COMPLETED' | 'FAILED' | 'CANCELED';

export interface FinishInput {
  runId: string;
  status: FinalStatus;
  output?: unknown;
  error?: string | null;
  /** A named run failure (RunErrorCode in src/execution/failure.ts), shown as `errorCode`. */
  errorCode?: string | null;
  /** Only this worker may finish it (null: anyone, e.g. a cancel). */
  leaseOwner: string | null;
  /** States it may be finished from. */
  from: Array<'QUEUED' | 'RUNNING'>;
  /** The outputs as the run.completed event shows them (file URLs signed). */
  eventOutputs?: unknown;
  /** A routed run (execution/routing.ts): which route served it and why others did not; its charge is that route's price. */
  route?: RouteReport;
  /** The engine's last progress report, written by the settle instead of a statement of its own (runs/finalProgress.ts). */
  progress?: { fraction: number; message: string | null };
}

/**
 * Ends a standalone run exactly once, in the caller's transaction: the guarded UPDATE either moves the run
 * or nothing happens; only when it moved is the hold captured (success) or released (failure, cancel), the
 * event written and the run's end announced. Returns the finished row, or undefined if it was not ours to finish.
 */
export async function finishModelRun(tx: Queryable, f: FinishInput): Promise<q.ModelRunRow | undefined> {
  // One statement locks the row, reads its hold and settles it (runs/queries.ts FINISH_RUN).
  const route = f.route ? JSON.stringify({ served: f.route.served, skipped: f.route.skipped }) : null;
  const finished = await rowOf<q.FinishedRunRow>(tx, q.FINISH_RUN, [f.runId, f.status, f.output === undefined ? null : JSON.stringify(f.output), f.error ?? null, f.from, f.leaseOwner, f.errorCode ?? null, f.route?.chargeMicrocredits ?? null, route, f.progress?.fraction ?? null, f.progress?.message ?? null]);
  if (!finished) return undefined;
  const { held_microcredits: held, ...run } = finished;
  // The served route's price, never more than the hold (the hold is the highest route's price).
  const charge: bigint = f.status === 'COMPLETED' ? run.charged_microcredits : held;
  const { type, data } = runEndEvent(
    f.status === 'COMPLETED'
      ? { status: 'COMPLETED', completedNodes: 1, outputs: f.eventOutputs ?? null, actualCredits: Number(charge) }
      : f.status === 'FAILED'
        ? { status: 'FAILED', completedNodes: 0, failedNodeIds: [run.node_type] }
        : { status: 'CANCELED', completedNodes: 0, failedNodes: 0 },
  );
  // The event's rows and then the ledger's statements go with the COMMIT, in its round trip (db/pool.ts
  // withCommit; nothing below reads what they write): the account's balance row, which every create of
  // the account locks too, is held for one statement and the commit's WAL flush.
  const atCommit = { atCommit: true };
  await recordEvent(tx, { accountId: run.account_id, runId: run.id, workflowId: run.node_type, type, data, error: f.error ?? null, webhook: run.webhook }, atCommit);
  if (f.status === 'COMPLETED') {
    await capture(tx, run.account_id, charge, run.id, undefined, atCommit);
    if (charge < held) await release(tx, run.account_id, held - charge, run.id, `route ${f.route?.served ?? ''} costs less than the hold`, atCommit);
  } else await release(tx, run.account_id, held, run.id, f.status === 'CANCELED' ? 'canceled' : 'failed', atCommit);
  await notify(tx, CHANNELS.runEnded, run.id);
  return run;
}
