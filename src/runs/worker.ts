import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/pool.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';
import type { Catalog } from '../catalog/catalog.js';
import type { EngineRegistry } from '../engines/registry.js';
import { EngineInputError, type EngineContext, type EngineOutputs, type FetchMediaOptions, type Media, type OutputValue } from '../engines/types.js';
import type { FileService } from '../files/service.js';
import { recordEvent } from '../events/outbox.js';
import type { JobQueue } from '../queue/queue.js';
import { newId } from '../ids.js';
import { finishNodeRun } from './settle.js';
import { renderOutput, type StoredOutput } from './view.js';
import * as q from './queries.js';

export interface WorkerOptions {
  concurrency: number;
  leaseSeconds: number;
  tmpRoot: string;
  /** Builds the media fetcher for a run of this account (own files resolve only for their owner). */
  fetchMediaFor(accountId: string): (url: string, opts?: FetchMediaOptions) => Promise<Media>;
}

/** How many times a run may be picked up again after its worker died before it is failed as poison. */
const MAX_ATTEMPTS = 3;

/**
 * Consumes the run queue: claims each run with a lease, heartbeats while the engine works, stores the
 * artifacts and settles the run exactly once. A worker that dies leaves a lapsed lease that the sweeper
 * hands to another worker; a worker that outlives its lease finds its settle refused and discards its result.
 */
export class RunWorker {
  readonly id = newId('wrk');
  private readonly active = new Map<string, AbortController>();
  private unsubscribe: (() => void) | undefined;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly engines: EngineRegistry,
    private readonly files: FileService,
    private readonly queue: JobQueue,
    private readonly notifier: Notifier,
    private readonly log: Logger,
    private readonly opts: WorkerOptions,
  ) {}

  async start(): Promise<void> {
    fs.mkdirSync(this.opts.tmpRoot, { recursive: true });
    this.unsubscribe = await this.notifier.subscribe(CHANNELS.cancel, (runId) => this.active.get(runId)?.abort(new Error('canceled')));
    await this.queue.work(this.opts.concurrency, (job) => this.execute(job.runId));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    // Hand running work back rather than leave it until the lease lapses: abort and release the leases.
    for (const [runId, ctl] of this.active) {
      ctl.abort(new Error('worker shutting down'));
      await this.db.query(`UPDATE runs SET lease_expires_at = now() WHERE id = $1 AND lease_owner = $2 AND status = 'RUNNING'`, [runId, this.id]).catch(() => {});
    }
  }

  async execute(runId: string): Promise<void> {
    if (this.stopping) return;
    const claimed = (await this.db.tx(async (tx) => {
      const run = (await tx.query(q.CLAIM_RUN, [runId, this.id, this.opts.leaseSeconds])).rows[0];
      if (run && run.previous_status === 'QUEUED') {
        await recordEvent(tx, { accountId: run.account_id, runId, workflowId: run.node_type, type: 'run.started', data: { status: 'RUNNING', totalNodes: 1 }, webhook: run.webhook });
      }
      return run;
    })) as any;
    if (!claimed) return; // finished, canceled, or held by a live worker
    if (claimed.kind !== 'node') return;
    if (claimed.attempts > MAX_ATTEMPTS) {
      await this.settleFailure(runId, `the run stopped its worker ${claimed.attempts - 1} times and was given up`);
      return;
    }

    const ctl = new AbortController();
    this.active.set(runId, ctl);
    const heartbeat = setInterval(() => {
      this.db.query(q.HEARTBEAT, [runId, this.id, this.opts.leaseSeconds]).then(
        (r) => { if (r.rowCount === 0) ctl.abort(new Error('lease lost')); },
        () => {},
      );
    }, Math.max(250, (this.opts.leaseSeconds * 1000) / 3));
    const tmpDir = path.join(this.opts.tmpRoot, `${runId}-${claimed.attempts}`);
    fs.mkdirSync(tmpDir, { recursive: true });
    const deadline = Math.min(
      Date.now() + claimed.timeout_seconds * 1000,
      claimed.cancel_after ? claimed.cancel_after.getTime() : Number.POSITIVE_INFINITY,
    );
    const timer = setTimeout(() => ctl.abort(new Error('timeout')), Math.max(0, deadline - Date.now()));
    try {
      const outputs = await this.runEngine(claimed, ctl.signal, deadline, tmpDir);
      if (ctl.signal.aborted) throw ctl.signal.reason;
      await this.settleSuccess(claimed, outputs);
    } catch (err) {
      const reason = ctl.signal.aborted ? (ctl.signal.reason as Error)?.message : undefined;
      // Canceled (the canceler settled it), lease lost or shutting down (another worker continues): nothing to settle here.
      if (reason === 'canceled' || reason === 'lease lost' || reason === 'worker shutting down') return;
      const message = reason === 'timeout'
        ? `timed out after ${Math.round((deadline - claimed.started_at.getTime()) / 1000)} s`
        : err instanceof Error ? err.message : String(err);
      if (!(err instanceof EngineInputError)) this.log.warn({ runId, err }, 'run failed');
      await this.settleFailure(runId, message);
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timer);
      this.active.delete(runId);
      fs.rm(tmpDir, { recursive: true, force: true }, () => {});
    }
  }

  private async runEngine(run: any, signal: AbortSignal, deadline: number, tmpDir: string): Promise<EngineOutputs> {
    const { mode } = this.catalog.resolveNode(run.node_type, run.sub_model_id, { requireSubModel: false });
    const engine = this.engines.get(mode.engine.engine);
    if (!engine) throw new Error(`engine ${mode.engine.engine} is not available in this worker`);
    let lastProgress = 0;
    const ctx: EngineContext = {
      signal,
      deadline,
      tmpDir,
      log: {
        debug: (msg, data) => this.log.debug({ runId: run.id, ...data }, msg),
        info: (msg, data) => this.log.info({ runId: run.id, ...data }, msg),
        warn: (msg, data) => this.log.warn({ runId: run.id, ...data }, msg),
      },
      progress: (fraction, message) => {
        // At most two writes a second: progress is for people watching, not a log.
        const now = Date.now();
        if (now - lastProgress < 500 && fraction < 1) return;
        lastProgress = now;
        const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
        void this.db.query(q.PROGRESS, [run.id, this.id, f, message?.slice(0, 200) ?? null]).catch(() => {});
      },
      fetchMedia: this.opts.fetchMediaFor(run.account_id),
    };
    return engine.execute({ nodeType: run.node_type, subModelId: mode.subModelId, input: run.input, options: mode.engine.options ?? {} }, ctx);
  }

  private async settleSuccess(run: any, outputs: EngineOutputs): Promise<void> {
    await this.db.tx(async (tx) => {
      const stored: StoredOutput = {};
      for (const [name, value] of Object.entries(outputs)) {
        const one = async (v: OutputValue): Promise<unknown> => {
          switch (v.kind) {
            case 'file': return { file: (await this.files.save(tx, run.account_id, v, run.id)).id };
            case 'text': return v.text;
            case 'number':
            case 'boolean':
            case 'json': return v.value;
          }
        };
        stored[name] = Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value);
      }
      const eventOutputs = (await renderOutput(this.files, stored, tx)).output;
      await finishNodeRun(tx, { runId: run.id, status: 'COMPLETED', output: stored, leaseOwner: this.id, from: ['RUNNING'], eventOutputs });
    });
  }

  private async settleFailure(runId: string, message: string): Promise<void> {
    await this.db.tx((tx) => finishNodeRun(tx, { runId, status: 'FAILED', error: message.slice(0, 2000), leaseOwner: this.id, from: ['RUNNING'] }));
  }
}
