import type { Static } from '@sinclair/typebox';
import type { CreateNodeRunBody } from '../contract/runs.js';
import crypto from 'node:crypto';
import { canonicalJson } from '../canonicalJson.js';
import type { Db } from '../db/pool.js';
import { CHANNELS, notify, type Notifier } from '../db/notifier.js';
import { RunEndWatch } from './runEndWatch.js';
import { AppError, asFieldErrors } from '../errors.js';
import { newId } from '../ids.js';
import { decodeCursor, pageOf } from '../pagination.js';
import { refusalOf } from '../ledger/ledger.js';
import { checkModelScope, type KeyScope } from '../keys/scopes.js';
import type { Queryable } from '../db/pool.js';
import { checkKeyFormat, createOnce, Refused, type KeyClaim } from './idempotency.js';
import type { Catalog } from '../catalog/catalog.js';
import { holdPriceMicrocredits } from '../catalog/routes.js';
import { parseWebhookConfig } from '../events/webhookConfig.js';
import { NODE_RUN_EVENTS } from '../events/types.js';
import type { JobQueue } from '../queue/queue.js';
import { finishModelRun } from './settle.js';
import { checkInlineAudio } from './inlineAudio.js';
import * as q from './queries.js';
import { currentTraceparent } from '../tracing/tracing.js';
import { jobPrioritySql } from '../queue/fairness.js';
import { allowedPriority } from '../keys/priority.js';
import { preparedRowOf, rowOf, rowsOf } from '../db/typed.js';

/** A model run to create: the request body of POST /v1/nodes/{nodeType}/run plus what the route reads from the path and headers. */
export type CreateModelRun = Static<typeof CreateNodeRunBody> & {
  accountId: string;
  nodeType: string;
  idempotencyKey?: string;
  cancelAfterSeconds?: number;
  /** The API key the run is created with: its spend limits and allow-list apply, and its priority ceiling is read only when more than normal priority is asked. */
  keyId?: string | null;
  scope?: KeyScope;
};

export interface CreatedRun {
  /** The new run's main columns (id, status, estimated_microcredits, …), or a replayed run's whole row. */
  run: q.RunRow | q.CreatedRunRow;
  /** True when an earlier request with the same Idempotency-Key created it. */
  replayed: boolean;
}



/**
 * Standalone model runs: creation (price → reserve → insert → enqueue in one statement), reads, cancel.
 * ("Node run" means a workflow node only.) In the database they stay runs.kind = 'node': renaming the
 * value would rewrite every run row and the queued jobs that carry it.
 */
export class ModelRunService {
  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly queue: JobQueue,
    private readonly notifier: Notifier,
    /** Checks a webhook URL's host resolves to a public address (DNS), unless the operator allows private ones. */
    private readonly checkWebhookUrl: (url: string) => Promise<void>,
  ) {
    this.ends = new RunEndWatch(notifier);
  }

  private readonly ends: RunEndWatch;

  /**
   * Set in a process that also works the queue (app/server.ts): offered each run this service has just
   * created, with its job's id; true when the process took the run itself (execution/dispatcher.ts
   * takeOwn), so no consumer loop needs waking for it.
   */
  takeOwn: ((run: { runId: string; nodeType: string; subModelId: string | null }, jobId: string) => boolean) | undefined;

  async create(c: CreateModelRun): Promise<CreatedRun> {
    // No subModelId: the model's default mode; the mode may also be named inside the input (hosted clients).
    const call = asFieldErrors('input', () => this.catalog.resolveCall(c.nodeType, c.subModelId, c.input ?? {}, { inputPath: 'input' }));
    const resolved = call.resolved;
    const { model, mode } = resolved;
    if (model.deprecated) {
      throw new AppError('MODEL_DEPRECATED', `${model.nodeType} was retired on ${model.deprecated.at.slice(0, 10)}; use ${model.deprecated.replacement} instead`, {
        extra: { replacement: model.deprecated.replacement },
      });
    }
    checkModelScope(c.scope, model);
    const input = asFieldErrors('input', () => {
      const valid = this.catalog.validateInput(mode, call.input, { path: 'input' });
      checkInlineAudio(mode, valid, 'input');
      return valid;
    });
    const webhook = parseWebhookConfig(c.webhook, NODE_RUN_EVENTS);
    checkKeyFormat(c.idempotencyKey);
    const availability = this.catalog.availability(model, mode);
    if (!availability.available) {
      throw new AppError('MODEL_UNAVAILABLE', `${model.nodeType} cannot run on this server: ${availability.reason ?? 'unavailable'}. Nothing was charged.`);
    }
    if (webhook) await this.checkWebhookUrl(webhook.url);
    // A routed model holds its highest route's price; its settle captures the serving route's (catalog/routes.ts).
    const cost = BigInt(holdPriceMicrocredits(mode, input));
    const requestHash = crypto.createHash('sha256').update(canonicalJson({ nodeType: model.nodeType, subModelId: resolved.subModelId, input: c.input ?? {}, webhook: c.webhook ?? null })).digest('hex');
    const timeout = mode.timeoutSeconds ?? 600;
    const level = await allowedPriority(this.db, c.keyId ?? undefined, c.priority ?? undefined);

    // One round trip when nothing stands in the way (runs/queries.ts createRunStatement); a second only for
    // a refusal or an Idempotency-Key seen before (runs/idempotency.ts).
    const runId = newId('run');
    // Fair shares (queue/fairness.ts): the job goes behind its own account's live runs, not everyone's.
    // Priority first (queue/fairness.ts jobPriority), then fair shares: behind its own account's live runs.
    const jobId = crypto.randomUUID();
    const job = this.queue.runJobInsert('run', { runId, kind: 'node' }, timeout + 60, 18, { prioritySql: jobPrioritySql('$2', '$16'), id: jobId });
    const sql = q.createRunStatement(job.sql);
    const values = [
      runId, c.accountId, 'node', model.nodeType, resolved.subModelId, null, input, cost, webhook ?? null,
      c.cancelAfterSeconds ?? null, timeout, c.idempotencyKey ?? null, requestHash, 'node-run', currentTraceparent(), level, c.keyId ?? null, ...job.values,
    ];
    const claim = c.idempotencyKey === undefined ? null : { accountId: c.accountId, key: c.idempotencyKey, scope: 'node-run' as const, requestHash };
    const once = await createOnce(this.db, claim, async () => {
      const run = await preparedRowOf<q.CreatedRunRow>(this.db, 'atelier_create_node_run', sql, values);
      if (run) return run;
      // No row: a spend limit or the balance refused the hold (ledger/queries.ts holdSql), or there is no such account (refusalOf says which).
      throw new Refused(await refusalOf(this.db, c.accountId, c.keyId ?? null, cost));
    });
    // The key was claimed in the statement that created its run, so the run it names exists.
    if ('replayOf' in once) return { run: (await rowOf<q.RunRow>(this.db, q.RUN_BY_ID, [once.replayOf]))!, replayed: true };
    // Committed: the run, its hold and its job exist whatever happens to this process from here.
    if (!this.takeOwn?.({ runId, nodeType: model.nodeType, subModelId: resolved.subModelId }, jobId)) this.db.notifyAfterCommit(CHANNELS.jobs);
    return { run: once.created, replayed: false };
  }

  /** The one Idempotency-Key path (runs/idempotency.ts), for workflow runs' creation. */
  createOnce<T>(claim: KeyClaim | null, create: () => Promise<T>): Promise<{ created: T } | { replayOf: string }> {
    return createOnce(this.db, claim, create);
  }

  /** Claims a workflow run's key in its creating transaction (a taken key rolls it back: createOnce decides). */
  async claimKey(tx: Queryable, claim: KeyClaim, runId: string): Promise<void> {
    await tx.query(q.CLAIM_KEY, [claim.accountId, claim.key, claim.scope, claim.requestHash, runId]);
  }

  /** A run of this account, or 404 (also for another account's run). */
  async get(accountId: string, runId: string, kind: 'node' | 'workflow' = 'node'): Promise<q.RunRow> {
    if (!/^run_[0-9A-Za-z]{1,40}$/.test(runId)) throw new AppError('NOT_FOUND', 'run not found');
    const run = await rowOf<q.RunRow>(this.db, q.RUN_BY_ID, [runId]);
    if (!run || run.account_id !== accountId || run.kind !== kind) throw new AppError('NOT_FOUND', 'run not found');
    return run;
  }

  async list(accountId: string, cursor: string | undefined, limit: number): Promise<{ runs: q.ListedRunRow[]; nextCursor: string | null }> {
    const after = decodeCursor(cursor);
    const rows = await rowsOf<q.ListedRunRow>(this.db, q.LIST_RUNS, [accountId, 'node', after[0], after[1], limit + 1]);
    const { page, nextCursor } = pageOf(rows, limit, (r) => r.cursor_at);
    return { runs: page, nextCursor };
  }

  /** Both kinds of run, newest first (summary columns only). */
  async listAll(accountId: string, cursor: string | undefined, limit: number): Promise<{ runs: q.RunSummaryRow[]; nextCursor: string | null }> {
    const after = decodeCursor(cursor);
    const rows = await rowsOf<q.RunSummaryRow>(this.db, q.LIST_ALL_RUNS, [accountId, after[0], after[1], limit + 1]);
    const { page, nextCursor } = pageOf(rows, limit, (r) => r.cursor_at);
    return { runs: page, nextCursor };
  }

  /**
   * Cancels a queued or running run at once and refunds its hold. A running engine is told to stop through
   * a NOTIFY to whichever worker holds it; that worker's own settle then finds the run already ended.
   */
  async cancel(accountId: string, runId: string, reason = 'canceled by request'): Promise<q.RunRow> {
    await this.get(accountId, runId);
    await this.cancelById(runId, reason);
    return this.get(accountId, runId);
  }

  async cancelById(runId: string, reason: string): Promise<boolean> {
    return this.db.tx(async (tx) => {
      const done = await finishModelRun(tx, { runId, status: 'CANCELED', error: reason, leaseOwner: null, from: ['QUEUED', 'RUNNING'] });
      if (done) await notify(tx, CHANNELS.cancel, runId);
      return done !== undefined;
    });
  }

  /**
   * Taken before a run is created, for waitForEnd: lets the wait skip its first read of the run
   * (runs/runEndWatch.ts). Undefined when the process cannot vouch for hearing every run end.
   */
  endMark(): { epoch: number } | undefined {
    return this.ends.mark();
  }

  /** Resolves when the run has ended or `seconds` have passed (Prefer: wait). `mark`: endMark() taken before the run was created. */
  async waitForEnd(runId: string, seconds: number, mark?: { epoch: number }): Promise<void> {
    const ended = async () => (['COMPLETED', 'FAILED', 'CANCELED'] as Array<string | undefined>).includes((await rowOf<{ status: string }>(this.db, q.RUN_STATUS, [runId]))?.status);
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    // The handler is in place before subscribe() first yields (the channel is already listened to when
    // there is a mark), so no end falls between the look at `ends` below and the handler.
    const subscribed = this.notifier.subscribe(CHANNELS.runEnded, (id) => {
      if (id === runId) finish();
    });
    const heard = this.ends.current(mark) ? this.ends.has(runId) : undefined;
    const off = await subscribed;
    const timer = setTimeout(finish, seconds * 1000);
    // A backstop poll covers a dropped LISTEN connection.
    const poll = setInterval(() => void ended().then((e) => e && finish(), () => {}), 1000);
    try {
      if (heard === true) return;
      // Ended before the wait began, unheard of: only a run created before the mark (or none) can be.
      if (heard === undefined && (await ended())) return;
      await done;
    } finally {
      off();
      clearTimeout(timer);
      clearInterval(poll);
    }
  }
}
