import PgBoss from 'pg-boss';
import type { Queryable } from '../db/pool.js';
import { CHANNELS, notify, type Notifier } from '../db/notifier.js';
import { overAccountLimit, priorityFor } from './fairness.js';
import { BOSS_SCHEMA, DROP_NODE_JOBS, EXPECTED_JOB_COLUMNS, JOB_COLUMNS, jobInsertSql, RUN_QUEUE_NAME } from './queries.js';
import { WakeUps } from './wakeUps.js';

export const RUN_QUEUE = RUN_QUEUE_NAME;

export interface RunJob {
  runId: string;
  /** What to do: a standalone run, or a workflow's advance step (or one of its nodes, with nodeId). */
  kind: 'node' | 'workflow';
  nodeId?: string;
}

/**
 * The job queue: pg-boss on the same PostgreSQL. Jobs are enqueued inside the caller's transaction (so a
 * run and its job commit together), and a NOTIFY in that transaction wakes idle workers at commit instead
 * of waiting for pg-boss's polling interval.
 */
export class JobQueue {
  readonly boss: PgBoss;
  private readonly workerIds: string[] = [];
  private unsubscribe: (() => void) | undefined;

  private readonly pollingIntervalSeconds: number;

  /** Per-account concurrency limit (fairness.ts); 0 = none. */
  private readonly accountConcurrency: number;
  /** Answers queries outside a caller's transaction (the limit check); set by the services. */
  db: Queryable | undefined;

  /** `loops`: the consumer loops a worker of this process would start (each fetches and completes its jobs on pg-boss's own pool). */
  constructor(databaseUrl: string, private readonly notifier: Notifier, opts: { supervise: boolean; pollingIntervalSeconds?: number; accountConcurrency?: number; loops?: number }) {
    this.accountConcurrency = opts.accountConcurrency ?? 0;
    this.pollingIntervalSeconds = opts.pollingIntervalSeconds ?? 2;
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      application_name: `atelier:${process.pid}:queue`,
      schema: BOSS_SCHEMA,
      // One connection per consumer loop and two for the rest (supervision, sends outside a caller's
      // transaction): with fewer, loops queued for a connection to fetch or complete a job.
      max: Math.max(4, (opts.loops ?? 2) + 2),
      supervise: opts.supervise,
      schedule: false,
      // Runs are recovered by their own lease (runs/sweeper.ts); pg-boss does not retry them itself.
      retryLimit: 0,
    });
    this.boss.on('error', () => {});
  }

  async start(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue(RUN_QUEUE).catch(() => {});
    await this.checkJobColumns();
  }

  /** Refuses to start when pg-boss's `job` table is not the one runJobInsert writes (queries.ts). */
  private async checkJobColumns(): Promise<void> {
    const found = (await this.boss.getDb().executeSql(JOB_COLUMNS, [BOSS_SCHEMA])).rows.map((r: { column_name: string }) => r.column_name).sort();
    if (found.join() !== EXPECTED_JOB_COLUMNS.join()) {
      throw new Error(`pg-boss's ${BOSS_SCHEMA}.job columns changed (found ${found.join(', ')}; expected ${EXPECTED_JOB_COLUMNS.join(', ')}): update queue/queries.ts jobInsertSql for this pg-boss version`);
    }
  }

  /** Stamps a run as having a job in flight (runs/ owns the column; services.ts sets it). */
  stampEnqueued: ((tx: Queryable, runId: string) => Promise<void>) | undefined;

  /**
   * `stamped`: the caller already set the run's enqueued_at in this transaction (a fresh insert), saving a round trip.
   * `priority`: the job's fair-share priority if the caller already has it (e.g. computed with fairness.ts
   * LIVE_AHEAD inside its own statement); otherwise one query here finds it. `startAfterSeconds`: not before then.
   */
  async enqueueRun(tx: Queryable, job: RunJob, expireInSeconds: number, opts: { stamped?: boolean; startAfterSeconds?: number; priority?: number } = {}): Promise<void> {
    if (!job.nodeId && !opts.stamped) await this.stampEnqueued?.(tx, job.runId);
    await this.boss.send(RUN_QUEUE, job, {
      db: { executeSql: (text, values) => tx.query(text, values) },
      expireInSeconds: Math.max(30, expireInSeconds),
      retryLimit: 0,
      // Fair shares between accounts (fairness.ts): behind the account's own live runs, not everyone's.
      priority: opts.priority ?? (await priorityFor(tx, job.runId)),
      ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
    });
    await notify(tx, CHANNELS.jobs);
  }

  /**
   * Jobs for several nodes of one workflow run, in one statement of the caller's transaction (an advance
   * that makes many nodes ready at once: a fan-out), rather than one send() and one priority query each.
   * Each is the row enqueueRun would write for `{ runId, kind: 'workflow', nodeId }` with the run's
   * priority, in the order given (created_on ties are ordered by id, so order within the batch is not promised).
   */
  async enqueueNodes(tx: Queryable, runId: string, nodes: Array<{ nodeId: string; expireInSeconds: number }>): Promise<void> {
    if (nodes.length === 0) return;
    const priority = await priorityFor(tx, runId);
    const sql = jobInsertSql('unnest($1::text[], $2::int[]) AS g(node_id, expire)', '$3',
      `jsonb_build_object('runId', $4::text, 'kind', 'workflow', 'nodeId', g.node_id)`, '$5::int', 'g.expire');
    await tx.query(sql, [nodes.map((n) => n.nodeId), nodes.map((n) => Math.max(30, n.expireInSeconds)), RUN_QUEUE, runId, priority]);
    await notify(tx, CHANNELS.jobs);
  }

  /**
   * Deletes the waiting jobs of some ended nodes of a run (their work was done without them: a worker took
   * the nodes with another node's settle, workflows/executor.ts). Only jobs no worker has fetched yet.
   */
  async dropNodeJobs(db: Queryable, runId: string, nodeIds: string[]): Promise<void> {
    await db.query(DROP_NODE_JOBS, [RUN_QUEUE, runId, nodeIds]);
  }

  /**
   * A run-queue job as the body of a data-modifying CTE, so that a run, its reservation and its job are
   * written by one statement (runs/service.ts create): the same row pg-boss's send() writes for
   * enqueueRun's options, in pg-boss 10's `job` table (test/api/runCreate.test.ts compares the two). One job
   * per row of `gate` (a CTE of the statement). Placeholders are numbered from `firstParam`. The caller
   * sends the CHANNELS.jobs wake-up once the statement has committed.
   */
  runJobInsert(gate: string, job: RunJob, expireInSeconds: number, firstParam: number, opts: { priority?: number; prioritySql?: string; perRow?: { runIdSql: string; expireSql: string }; /** The job's id (a uuid), for a claim that drops it (dropWaitingJobSql); else one is drawn in SQL. */ id?: string } = {}): { sql: string; values: unknown[] } {
    const values: unknown[] = [];
    const p = (v: unknown) => {
      values.push(v);
      return `$${firstParam + values.length - 1}`;
    };
    // perRow: one job per new run of the gate (a batch, runs/batches.ts), each naming its own run and expiry.
    const data = opts.perRow ? `jsonb_build_object('runId', ${opts.perRow.runIdSql}, 'kind', ${p(job.kind)}::text)` : p(JSON.stringify(job));
    const priority = opts.prioritySql ?? `COALESCE(${p(opts.priority ?? null)}::int, 0)`;
    const expire = opts.perRow ? `GREATEST(30, ${opts.perRow.expireSql})` : p(Math.max(30, expireInSeconds));
    const sql = jobInsertSql(gate, p(RUN_QUEUE), data, priority, expire, opts.id === undefined ? undefined : `${p(opts.id)}::uuid`);
    return { sql, values };
  }

  /** Starts `concurrency` consumer loops of the run queue. */
  async work(concurrency: number, handler: (job: RunJob) => Promise<void>): Promise<void> {
    // A handler error must not fail the job silently into pg-boss's archive: the run state lives in
    // PostgreSQL and the sweeper re-queues anything left behind, so errors are logged by the handler.
    const wakeUps = new WakeUps();
    const wakeOne = (id: string | undefined) => {
      if (id) this.boss.notifyWorker(id);
    };
    for (let i = 0; i < concurrency; i++) {
      let id = '';
      id = await this.boss.work<RunJob>(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: this.pollingIntervalSeconds }, async ([job]) => {
        if (!job) return;
        // A job found: another may be waiting behind it (wakeUps.ts), so one more idle loop looks.
        if (id) wakeOne(wakeUps.taken(id));
        // pg-boss sleeps a whole polling interval after every job unless notified meanwhile; a loop that just
        // found a job asks again at once instead, so a backlog drains at engine speed rather than one job per interval.
        try {
          if (!(await this.deferredForFairness(job.data))) await handler(job.data);
        } finally {
          if (id) {
            wakeUps.done(id);
            this.boss.notifyWorker(id);
          }
        }
      });
      this.workerIds.push(id);
      wakeUps.add(id);
    }
    const wake = () => wakeOne(wakeUps.onNotify());
    this.unsubscribe = await this.notifier.subscribe(CHANNELS.jobs, wake);
  }

  /**
   * A job that would start engine work for an account already at its concurrency limit goes back on the
   * queue for a moment (fairness.ts); advance steps are never held back. True when it was put back.
   */
  private async deferredForFairness(job: RunJob): Promise<boolean> {
    // Only workflow nodes are checked here: a standalone run's claim checks its account's share in the same
    // statement (runs/queries.ts CLAIM_RUN), saving a round trip per run.
    if (this.accountConcurrency <= 0 || !this.db || !job.nodeId) return false;
    const db = this.db;
    const wait = await overAccountLimit(db, job.runId, this.accountConcurrency).catch(() => undefined);
    if (wait === undefined) return false;
    await this.enqueueRun(db, job, 120 + wait, { stamped: true, startAfterSeconds: wait });
    return true;
  }

  /** Stops fetching jobs (a fetch already under way may still deliver one to the handler). */
  async stopWorking(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.workerIds.length) await this.boss.offWork(RUN_QUEUE).catch(() => {});
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.boss.stop({ graceful: true, wait: true, timeout: 15_000 }).catch(() => {});
  }
}
