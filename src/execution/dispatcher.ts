import type { Logger } from 'pino';
import { isConnectionError, retryOnConnectionLoss, type Db } from '../db/pool.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';
import type { JobQueue, RunJob } from '../queue/queue.js';
import { ABORT, type LeasedTaskRunner } from './leasedTask.js';
import { runInSlot } from './remoteLane.js';

/** What the dispatcher hands each kind of job to (runs/ and workflows/ implement these; neither imports the other). */
export interface JobHandlers {
  /** A standalone run; `jobId`: its job, still waiting, for the claim to drop (a run this process created, takeOwn). */
  executeRun(runId: string, jobId?: string): Promise<void>;
  /** A workflow's advance step (which may run the first ready node at once). */
  advanceWorkflow(runId: string): Promise<void>;
  /** One workflow node. */
  executeNode(runId: string, nodeId: string): Promise<void>;
  /** The kind of a run ('node' or 'workflow'), for a job queued without one by an older release. */
  kindOf(runId: string): Promise<string | undefined>;
}

/**
 * Consumes the run queue and routes each job to its handler; owns what every kind shares: the cancel
 * subscription (aborting the task's engine through the leased-task runner), re-queuing jobs picked up
 * while the database was away, and a graceful stop that lets running tasks finish, then aborts and hands
 * back the rest.
 */
export class JobDispatcher {
  /** Every job this process is handling, so a stop can wait for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    private readonly notifier: Notifier,
    private readonly tasks: LeasedTaskRunner,
    private readonly handlers: JobHandlers,
    private readonly log: Logger,
    /** `concurrency`: CPU slots; `intake`: extra loops taking jobs (remote runs give theirs back at once). */
    private readonly opts: { concurrency: number; intake?: number },
  ) {}

  async start(): Promise<void> {
    // A cancel NOTIFY names the run (`runId`) or one workflow node (`runId:nodeId`).
    this.unsubscribe = await this.notifier.subscribe(CHANNELS.cancel, (key) => this.tasks.abort(key, ABORT.canceled));
    // A job holds its consumer loop until it ends or gives the loop back (a remote call,
    // execution/remoteLane.ts), and the loop then takes the next job while the call goes on: the in-flight
    // set, not the loops, is what a stop waits for. There are a few more loops than CPU slots
    // (ATELIER_WORKER_INTAKE) so remote runs are claimed faster; a local engine call waits for a CPU slot
    // (engineRunner.ts), so at most that many local runs wait claimed.
    await this.queue.work(this.opts.concurrency + (this.opts.intake ?? 0), (job) => {
      const { done, released } = runInSlot(() => this.dispatch(job));
      void this.track(done.catch((err) => {
        if (isConnectionError(err)) {
          // The database went away before the run was claimed: send the job again (claims are guarded, so
          // a duplicate is harmless) rather than wait for the sweeper's backstop.
          this.log.warn({ err, job }, 'database connection lost while picking up a job; re-queuing it');
          this.requeueLater(job);
          return;
        }
        // The run's state is in PostgreSQL; the sweeper re-queues whatever this left unfinished.
        this.log.error({ err, job }, 'run job failed');
      }));
      return released;
    });
  }

  /**
   * A standalone run this process has just created (committed, with its job), taken here at once instead of
   * through the queue, when nothing would make it wait: the caller (runs/service.ts) has checked its engine
   * would start now. Its claim is the same guarded, leased claim a consumer loop makes, and drops the job it
   * no longer needs in the same statement; the run then lives exactly as a fetched one (heartbeat, deadline,
   * cancel, settle, hand-back). Nothing is lost to a crash at any point: before the claim the job is still
   * waiting (a loop of any worker fetches it), after it the lease lapses and the sweeper re-queues the run,
   * and a loop that fetched the job meanwhile finds the run taken. False: not taken (stopping), queue it.
   * `room`: gives back the remote lane's room promised to the run (RemoteLane.promiseRoom), called once
   * the run holds its call's permits (it gives its slot back, remoteLane.ts) or ends without reaching them.
   */
  takeOwn(runId: string, jobId: string, room: () => void): boolean {
    if (this.stopping || !this.tasks.accepting) {
      room();
      return false;
    }
    const { done, released } = runInSlot(() => this.handlers.executeRun(runId, jobId));
    void released.then(room);
    void this.track(done.catch((err) => {
      // A claim that failed rolled back with its job still waiting: wake a loop to fetch it.
      this.log.warn({ err, runId }, 'could not start a run taken at its creation; its job is left to the queue');
      this.db.notifyAfterCommit(CHANNELS.jobs);
    }));
    return true;
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private requeueLater(job: RunJob, delayMs = 500): void {
    setTimeout(() => {
      retryOnConnectionLoss(() => this.db.tx((tx) => this.queue.enqueueRun(tx, job, 120)))
        .catch((err) => this.log.warn({ err, job }, 'could not re-queue a job; the sweeper will'));
    }, delayMs).unref();
  }

  /** A job is a standalone run, a workflow's advance step, or one workflow node. */
  private async dispatch(job: RunJob): Promise<void> {
    // A job fetched while stopping belongs to another worker: put it back instead of dropping it.
    if (this.stopping) return this.db.tx((tx) => this.queue.enqueueRun(tx, job, 120));
    if (job.nodeId) return this.handlers.executeNode(job.runId, job.nodeId);
    // Jobs carry their kind; only a job queued without one (an older release) costs a lookup.
    const kind = job.kind ?? (await this.handlers.kindOf(job.runId));
    if (kind === 'workflow') return this.handlers.advanceWorkflow(job.runId);
    if (kind === 'node') return this.handlers.executeRun(job.runId);
  }

  /**
   * Stops taking jobs, lets the running ones finish for up to `graceMs`, then aborts the rest and hands
   * them back (lease released and job re-queued, so another worker starts them at once).
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopping = true;
    this.tasks.accepting = false;
    await this.queue.stopWorking();
    if (!(await settledWithin([...this.inFlight], graceMs))) {
      this.tasks.abortAll(ABORT.shuttingDown);
      // Engines stop on abort (their child is killed); one that does not is left behind (its settle will be refused).
      await settledWithin([...this.inFlight], 5000);
      await this.tasks.handBackRemaining();
    }
    this.unsubscribe?.();
  }
}

/** Resolves true when every promise settled within `ms`, false when time ran out first. */
export async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
