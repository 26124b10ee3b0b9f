import crypto from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { CreateWorkflowRunBody, ListWorkflowRunsQuery } from '../contract/runs.js';
import { canonicalJson } from '../canonicalJson.js';
import type { Db, Queryable } from '../db/pool.js';
import type { KeyClaim } from '../runs/idempotency.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { AppError, FieldError } from '../errors.js';
import { checkModelScope, type KeyScope } from '../keys/scopes.js';
import { allowedPriority } from '../keys/priority.js';
import { newId } from '../ids.js';
import { decodeCursor, pageOf } from '../pagination.js';
import { release, reserve } from '../ledger/ledger.js';
import { defaultMode, type Catalog } from '../catalog/catalog.js';
import { parseWebhookConfig } from '../events/webhookConfig.js';
import { WORKFLOW_RUN_EVENTS } from '../events/types.js';
import { recordEvent } from '../events/outbox.js';
import { runEndEvent } from '../events/runEnd.js';
import type { JobQueue } from '../queue/queue.js';
import { resolveRequestValues } from './inputs.js';
import { estimateWorkflowNodes } from './runEstimate.js';
import type { WorkflowService } from './service.js';
import type { Graph } from './types.js';
import * as nodeSql from '../runs/queries/nodes.js';
import * as runSql from '../runs/queries/workflowRuns.js';
import { currentTraceparent } from '../tracing/tracing.js';
import { rowOf, rowsOf } from '../db/typed.js';
import type { ListedRunRow, RunRow, WorkflowRunRow } from '../runs/queries.js';


const STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELED'];

/**
 * What workflow runs use of the run records module (runs/service.ts provides it; services.ts wires it):
 * declared here so `workflows` does not import `runs`.
 */
/** A workflow run to create: the request body of POST /v1/runs plus what the route reads from headers. */
export type CreateWorkflowRun = Static<typeof CreateWorkflowRunBody> & {
  accountId: string; idempotencyKey?: string; cancelAfterSeconds?: number;
  /** The API key the run is created with (its spend limits apply to every hold of the run) and its scope. */
  keyId?: string | null; scope?: KeyScope;
};

export interface RunRecords {
  createOnce<T>(claim: KeyClaim | null, create: () => Promise<T>): Promise<{ created: T } | { replayOf: string }>;
  claimKey(tx: Queryable, claim: KeyClaim, runId: string): Promise<void>;
  get(accountId: string, runId: string, kind?: 'node' | 'workflow'): Promise<RunRow>;
}

/** Workflow runs: priced with the estimate function, reserved, and handed to the executor through the queue. */
export class WorkflowRunService {
  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly workflows: WorkflowService,
    private readonly queue: JobQueue,
    private readonly nodeRuns: RunRecords,
    private readonly checkWebhookUrl: (url: string) => Promise<void>,
  ) {}

  async create(c: CreateWorkflowRun) {
    const row = await this.workflows.getRow(c.accountId, c.workflowId);
    const graph: Graph = row.graph;
    this.workflows.check(graph, true);
    const values = resolveRequestValues(graph, c.values);
    const webhook = parseWebhookConfig(c.webhook, WORKFLOW_RUN_EVENTS);
    if (webhook) await this.checkWebhookUrl(webhook.url);
    const modelNodes = graph.nodes.filter((n) => n.type !== 'request' && n.type !== 'response');
    for (const n of modelNodes) {
      const m = this.catalog.model(n.type)!;
      checkModelScope(c.scope, m, `node ${n.id}`);
      const mode = n.subModelId ? m.modes.find((x) => x.subModelId === n.subModelId)! : defaultMode(m);
      const a = this.catalog.availability(m, mode);
      if (!a.available) throw new AppError('MODEL_UNAVAILABLE', `node ${n.id} (${n.type}) cannot run on this server: ${a.reason ?? 'unavailable'}. Nothing was charged.`);
    }
    // The same function as POST /v1/workflows/estimate-credits, over the same nodes: the run costs its estimate.
    // Request-fed values are priced as given; values from other nodes at their defaults, until each node is ready (readyNode.ts chargeReadyNode).
    const prices = estimateWorkflowNodes(this.catalog, graph, modelNodes, values);
    const total = prices.reduce((s, p) => s + BigInt(p.microcredits), 0n);
    const requestHash = crypto.createHash('sha256').update(canonicalJson({ workflowId: row.id, values: c.values ?? {}, webhook: c.webhook ?? null, graph })).digest('hex');
    // Its level (keys/priority.ts): the queue orders its job and every node job by it (queue/fairness.ts reads runs.priority).
    const level = await allowedPriority(this.db, c.keyId ?? undefined, c.priority ?? undefined);

    const claim = c.idempotencyKey === undefined ? null : { accountId: c.accountId, key: c.idempotencyKey, scope: 'workflow-run' as const, requestHash };
    const once = await this.nodeRuns.createOnce(claim, () => this.db.tx(async (tx) => {
      const runId = newId('run');
      const run = (await rowOf<WorkflowRunRow>(tx, runSql.INSERT_RUN, [runId, c.accountId, row.id, values, total, webhook, c.cancelAfterSeconds ?? null, graph, currentTraceparent(), c.keyId ?? null, level]))!;
      // Every node's row in one statement: a statement each made a 100-node run's creation a hundred round trips.
      await tx.query(nodeSql.INSERT_NODE_RUNS, [runId, modelNodes.map((n) => n.id), modelNodes.map((n) => n.type), modelNodes.map((n) => n.subModelId ?? null), prices.map((p) => p.microcredits)]);
      // The balance row is locked before the key is claimed, as in a model run's creation (no deadlock between them).
      await reserve(tx, c.accountId, total, runId, c.keyId ?? null);
      if (claim) await this.nodeRuns.claimKey(tx, claim, runId);
      // enqueued_at defaults to the insert's now(): the run is stamped already.
      await this.queue.enqueueRun(tx, { runId, kind: 'workflow' }, 120, { stamped: true });
      return run;
    }));
    if ('replayOf' in once) return { run: await this.nodeRuns.get(c.accountId, once.replayOf, 'workflow'), replayed: true };
    return { run: once.created, replayed: false };
  }

  async get(accountId: string, runId: string): Promise<{ run: RunRow; nodes: nodeSql.NodeRunRow[] }> {
    const run = await this.nodeRuns.get(accountId, runId, 'workflow');
    const nodes = await rowsOf<nodeSql.NodeRunRow>(this.db, nodeSql.NODE_RUNS_OF, [[runId]]);
    return { run, nodes };
  }

  /** The node rows of these runs (a list page's runs). */
  async nodesOf(runIds: string[]): Promise<nodeSql.NodeRunRow[]> {
    return rowsOf<nodeSql.NodeRunRow>(this.db, nodeSql.NODE_RUNS_OF, [runIds]);
  }

  async batch(accountId: string, ids: string[]): Promise<Array<{ run: RunRow; nodes: nodeSql.NodeRunRow[] }>> {
    const runs = await rowsOf<RunRow>(this.db, runSql.RUNS_OF_ACCOUNT, [ids, accountId]);
    const nodes = await this.nodesOf(runs.map((r) => r.id));
    const order = new Map(ids.map((id, i) => [id, i]));
    return runs.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map((run) => ({ run, nodes: nodes.filter((n) => n.run_id === run.id) }));
  }

  /** `search` (MCP list_runs) matches the run id or its workflow's name. */
  async list(accountId: string, f: Static<typeof ListWorkflowRunsQuery> & { search?: string }) {
    if (f.status !== undefined && !STATUSES.includes(f.status)) throw new FieldError('VALIDATION_ERROR', `status must be one of ${STATUSES.join(', ')}`, false, [{ path: 'status', message: 'is not a run status' }]);
    const after = decodeCursor(f.cursor);
    const search = f.search?.replace(/[%_\\]/g, '\\$&') ?? null;
    const rows = await rowsOf<ListedRunRow>(
      this.db, runSql.LIST_WORKFLOW_RUNS,
      [accountId, f.status ?? null, f.workflowId ?? null, after[0], after[1], f.limit + 1, search, f.search ?? null],
    );
    const { page, nextCursor } = pageOf(rows, f.limit, (r) => r.cursor_at);
    return { runs: page, nextCursor };
  }

  /** Cancels queued nodes at once, tells workers to abort running ones, and refunds everything not yet charged. */
  async cancel(accountId: string, runId: string, reason = 'canceled by request'): Promise<void> {
    await this.nodeRuns.get(accountId, runId, 'workflow');
    await this.cancelById(runId, reason);
  }

  async cancelById(runId: string, reason: string): Promise<boolean> {
    return this.db.tx(async (tx) => {
      const run = await rowOf<WorkflowRunRow>(tx, runSql.LOCK_ANY_RUN, [runId]);
      if (!run || !['QUEUED', 'RUNNING'].includes(run.status)) return false;
      const stopped = await rowsOf<nodeSql.CanceledNodeRow>(tx, nodeSql.CANCEL_NODES, [runId]);
      const held = stopped.reduce((s, r) => s + r.held, 0n);
      await release(tx, run.account_id, held, runId, 'canceled');
      const counts = (await rowOf<nodeSql.NodeCountsRow>(tx, nodeSql.NODE_COUNTS, [runId]))!;
      await tx.query(runSql.CANCEL_WORKFLOW_RUN, [runId, reason, counts.charged]);
      for (const r of stopped) if (r.was === 'RUNNING') await notify(tx, CHANNELS.cancel, `${runId}:${r.node_id}`);
      await recordEvent(tx, { accountId: run.account_id, runId, workflowId: run.workflow_id, ...runEndEvent({ status: 'CANCELED', completedNodes: counts.c, failedNodes: counts.f }), error: reason, webhook: run.webhook });
      await notify(tx, CHANNELS.runEnded, runId);
      return true;
    });
  }
}
