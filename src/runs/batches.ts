import type { Db } from '../db/pool.js';
import { CHANNELS } from '../db/notifier.js';
import { rowOf, rowsOf } from '../db/typed.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Catalog } from '../catalog/catalog.js';
import { holdPriceMicrocredits } from '../catalog/routes.js';
import { checkModelScope, type KeyScope } from '../keys/scopes.js';
import { parseWebhookConfig } from '../events/webhookConfig.js';
import { NODE_RUN_EVENTS } from '../events/types.js';
import { refusalOf } from '../ledger/ledger.js';
import { allowedPriority } from '../keys/priority.js';
import { jobPrioritySql } from '../queue/fairness.js';
import type { JobQueue } from '../queue/queue.js';
import { checkInlineAudio } from './inlineAudio.js';
import { checkKeyFormat, createOnce, Refused } from './idempotency.js';
import crypto from 'node:crypto';
import { canonicalJson } from '../canonicalJson.js';
import { BATCH_BY_ID, BATCH_LIVE_RUNS, BATCH_RUNS, createBatchStatement } from './queries/batches.js';

/** The most inputs one batch takes (issue 29). */
export const MAX_BATCH_SIZE = 100;

export interface CreateBatch {
  accountId: string;
  keyId?: string;
  /** The key's scope: its allow-list and role apply to the batch's model as to a single run. */
  scope?: KeyScope;
  nodeType: string;
  subModelId?: string | null;
  inputs: Array<Record<string, unknown>>;
  webhook?: unknown;
  priority?: number | null;
  /** Idempotency-Key: the same key and body within 24 h answer the first batch instead of starting another. */
  idempotencyKey?: string;
}

/**
 * Batch runs (issue 29): N inputs of one model in one call. Every input is validated and priced first (a
 * bad one refuses the whole call, naming it, before anything is held); then one statement holds the sum of
 * the prices — the batch's exact estimate — and writes the batch, its N runs and their jobs
 * (runs/queries/batches.ts). From there each run is an ordinary run: executed, charged or refunded on its
 * own (runs/execution.ts, runs/settle.ts); the batch's progress is counted from them when read.
 */
export class BatchService {
  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly queue: JobQueue,
    private readonly checkWebhookUrl: (url: string) => Promise<void>,
  ) {}

  async create(c: CreateBatch): Promise<{ batch: BatchView; replayed: boolean }> {
    if (!Array.isArray(c.inputs) || c.inputs.length === 0 || c.inputs.length > MAX_BATCH_SIZE) {
      throw new AppError('VALIDATION_ERROR', `body.inputs must hold 1 to ${MAX_BATCH_SIZE} inputs`, { details: [{ path: 'body.inputs', message: `1 to ${MAX_BATCH_SIZE} inputs` }] });
    }
    const items = c.inputs.map((raw, i) => {
      const path = `body.inputs[${i}]`;
      const call = this.catalog.resolveCall(c.nodeType, c.subModelId ?? undefined, raw ?? {}, { inputPath: path });
      const { model, mode } = call.resolved;
      if (i === 0) checkModelScope(c.scope, model);
      if (model.deprecated) {
        throw new AppError('MODEL_DEPRECATED', `${model.nodeType} was retired on ${model.deprecated.at.slice(0, 10)}; use ${model.deprecated.replacement} instead`, {
          extra: { replacement: model.deprecated.replacement },
        });
      }
      const input = this.catalog.validateInput(mode, call.input, { path });
      checkInlineAudio(mode, input, path);
      const availability = this.catalog.availability(model, mode);
      if (!availability.available) {
        throw new AppError('MODEL_UNAVAILABLE', `${model.nodeType} cannot run on this server: ${availability.reason ?? 'unavailable'}. Nothing was charged.`);
      }
      return {
        id: newId('run'), nodeType: model.nodeType, subModelId: call.resolved.subModelId, input,
        cost: BigInt(holdPriceMicrocredits(mode, input)), timeout: mode.timeoutSeconds ?? 600,
      };
    });
    const nodeType = items[0]!.nodeType;
    const webhook = parseWebhookConfig(c.webhook, NODE_RUN_EVENTS);
    checkKeyFormat(c.idempotencyKey);
    if (webhook) await this.checkWebhookUrl(webhook.url);
    const level = await allowedPriority(this.db, c.keyId, c.priority ?? undefined);
    const total = items.reduce((sum, it) => sum + it.cost, 0n);

    const batchId = newId('bat');
    // One job per new run; a batch's later inputs queue behind its earlier ones (batch_index), all behind
    // the account's other live runs at the same priority (queue/fairness.ts).
    const job = this.queue.runJobInsert('run', { runId: '', kind: 'node' }, 0, 13, {
      prioritySql: jobPrioritySql('$2', '$7', 'run.batch_index'),
      perRow: { runIdSql: 'run.id', expireSql: 'run.timeout_seconds + 60' },
    });
    const requestHash = crypto.createHash('sha256').update(canonicalJson({
      nodeType, subModelId: c.subModelId ?? null, inputs: c.inputs, webhook: c.webhook ?? null, priority: level,
    })).digest('hex');
    const json = items.map((it) => ({ id: it.id, subModelId: it.subModelId, input: it.input, cost: it.cost.toString(), timeout: it.timeout }));
    const values = [batchId, c.accountId, nodeType, c.subModelId ?? null, total, items.length, level, JSON.stringify(json), webhook ?? null,
      c.idempotencyKey ?? null, requestHash, c.keyId ?? null, ...job.values];
    const claim = c.idempotencyKey === undefined ? null : { accountId: c.accountId, key: c.idempotencyKey, scope: 'batch' as const, requestHash };
    const once = await createOnce(this.db, claim, async () => {
      const created = await rowOf<{ id: string }>(this.db, createBatchStatement(job.sql), values);
      if (created) return created;
      // No row: a spend limit or the balance refused the hold (or there is no such account; refusalOf says which).
      const refusal = await refusalOf(this.db, c.accountId, c.keyId ?? null, total);
      if (refusal.code !== 'INSUFFICIENT_CREDITS') throw new Refused(refusal);
      const available = refusal.extra?.availableMicrocredits;
      throw new Refused(new AppError('INSUFFICIENT_CREDITS', `this batch of ${items.length} runs costs ${total} microcredits but only ${available} are available; nothing was started`, { extra: refusal.extra }));
    });
    if ('replayOf' in once) return { batch: await this.get(c.accountId, once.replayOf), replayed: true };
    this.db.notifyAfterCommit(CHANNELS.jobs);
    return { batch: await this.get(c.accountId, batchId), replayed: false };
  }

  /** A batch of this account with its progress and runs, or 404 (also for another account's batch). */
  async get(accountId: string, batchId: string): Promise<BatchView> {
    if (!/^bat_[0-9A-Za-z]{1,40}$/.test(batchId)) throw new AppError('NOT_FOUND', 'batch not found');
    const b = await rowOf<BatchRow>(this.db, BATCH_BY_ID, [batchId]);
    if (!b || b.account_id !== accountId) throw new AppError('NOT_FOUND', 'batch not found');
    const runs = await rowsOf<BatchRunRow>(this.db, BATCH_RUNS, [batchId]);
    return batchView(b, runs);
  }

  /** Cancels every run of the batch not yet ended (each refunded by its own cancel); answers the batch. */
  async cancel(accountId: string, batchId: string, cancelRun: (runId: string) => Promise<unknown>): Promise<BatchView> {
    await this.get(accountId, batchId);
    for (const r of await rowsOf<{ id: string }>(this.db, BATCH_LIVE_RUNS, [batchId])) await cancelRun(r.id);
    return this.get(accountId, batchId);
  }
}

interface BatchRow {
  id: string;
  account_id: string;
  node_type: string;
  sub_model_id: string | null;
  size: number;
  estimated_microcredits: bigint | string;
  priority: number;
  created_at: Date;
  queued: number;
  running: number;
  completed: number;
  failed: number;
  canceled: number;
  charged: bigint | string;
  refunded: bigint | string;
  started_at: Date | null;
  finished_at: Date | null;
}

interface BatchRunRow {
  id: string;
  batch_index: number;
  sub_model_id: string | null;
  status: string;
  estimated_microcredits: bigint | string;
  charged_microcredits: bigint | string;
  error: string | null;
  error_code: string | null;
}

export type BatchStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';

/** A batch's status from its runs' counts: ended when every run has; COMPLETED when any run completed. Pure. */
export function batchStatus(c: { size: number; queued: number; running: number; completed: number; failed: number; canceled: number }): BatchStatus {
  if (c.queued + c.running > 0) return c.queued === c.size ? 'QUEUED' : 'RUNNING';
  if (c.completed > 0) return 'COMPLETED';
  return c.canceled === c.size ? 'CANCELED' : 'FAILED';
}

export type BatchView = ReturnType<typeof batchView>;

/** The batch record (shape: src/contract/batches.ts). */
export function batchView(b: BatchRow, runs: BatchRunRow[]) {
  const ended = b.queued + b.running === 0;
  return {
    id: b.id,
    nodeType: b.node_type,
    subModelId: b.sub_model_id,
    status: batchStatus(b),
    size: b.size,
    priority: Number(b.priority),
    counts: { queued: b.queued, running: b.running, completed: b.completed, failed: b.failed, canceled: b.canceled },
    progress: b.size ? (b.completed + b.failed + b.canceled) / b.size : 1,
    estimatedCredits: Number(b.estimated_microcredits),
    creditUsed: Number(b.charged),
    refundedCredits: Number(b.refunded),
    createdAt: b.created_at.toISOString(),
    startedAt: b.started_at ? b.started_at.toISOString() : null,
    finishedAt: ended && b.finished_at ? b.finished_at.toISOString() : null,
    runs: runs.map((r) => ({
      index: r.batch_index,
      runId: r.id,
      subModelId: r.sub_model_id,
      status: r.status,
      estimatedCredits: Number(r.estimated_microcredits),
      creditUsed: Number(r.charged_microcredits),
      error: r.error,
      ...(r.error_code ? { errorCode: r.error_code } : {}),
    })),
  };
}
