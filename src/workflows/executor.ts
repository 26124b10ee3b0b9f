import type { Logger } from 'pino';
import type { PoolClient } from 'pg';
import { isConnectionError, type Db } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { capture, release } from '../billing/ledger.js';
import { recordEvent } from '../events/outbox.js';
import type { Catalog } from '../catalog/catalog.js';
import type { FileService } from '../files/service.js';
import type { JobQueue } from '../queue/queue.js';
import type { EngineRunner } from '../execution/engineRunner.js';
import type { LeasedTaskRunner } from '../execution/leasedTask.js';
import { renderOutput } from '../files/render.js';
import type { Metrics } from '../ops/metrics.js';
import { cacheKey, mapFileRefs, nodeInput } from './inputs.js';
import { chargeReadyNode } from './nodeCharge.js';
import type { Graph, GraphNode } from './types.js';
import * as q from './queries.js';
import { allEnded, nextStep } from './readySet.js';
import { cachedOutput, fileShas, storeCachedOutput } from './nodeCache.js';

const MAX_NODE_ATTEMPTS = 3;

/**
 * The one place that schedules workflow nodes (ComfyUI's execution loop, made durable). All state lives in
 * PostgreSQL: an `advance` step, serialised per run by a row lock, finds nodes whose inputs are ready,
 * serves them from the node cache or queues them as node jobs; each node job runs its engine like a
 * standalone run and queues another `advance`. A process dying anywhere leaves rows the sweeper resumes.
 */
export class WorkflowExecutor {
  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly runner: EngineRunner,
    private readonly files: FileService,
    private readonly queue: JobQueue,
    private readonly log: Logger,
    private readonly tasks: LeasedTaskRunner,
    /** The lease owner written on claimed nodes (one per worker process). */
    private readonly workerId: string,
    private readonly opts: { leaseSeconds: number; publicUrl: () => string; metrics?: Metrics },
  ) {}

  private modeOf(node: GraphNode) {
    return this.catalog.resolveNode(node.type, node.subModelId, { requireSubModel: false }).mode;
  }

  /** A workflow job: advances the run, then runs the first node that became ready right here (no queue hop). */
  async advanceAndRun(runId: string): Promise<void> {
    const queued = await this.advance(runId);
    if (queued[0] && this.tasks.accepting) await this.executeNode(runId, queued[0]);
  }

  /** Advances a run in its own transaction; returns the nodes it queued. */
  advance(runId: string): Promise<string[]> {
    return this.db.tx((tx) => this.advanceIn(tx, runId));
  }

  /**
   * Finds nodes whose inputs are ready and serves them from the cache or queues them (their jobs are sent
   * in this transaction); finishes the run when every node ended. Returns the node ids it queued.
   */
  private async advanceIn(tx: PoolClient, runId: string): Promise<string[]> {
    const queued: string[] = [];
    {
      const run = (await tx.query(`SELECT * FROM runs WHERE id = $1 AND kind = 'workflow' FOR UPDATE`, [runId])).rows[0];
      if (!run || !['QUEUED', 'RUNNING'].includes(run.status)) return queued;
      const graph: Graph = run.graph;
      const modelNodes = graph.nodes.filter((n) => n.type !== 'request' && n.type !== 'response');
      if (run.status === 'QUEUED') {
        await tx.query(`UPDATE runs SET status = 'RUNNING', started_at = now() WHERE id = $1`, [runId]);
        await this.event(tx, run, 'run.started', { status: 'RUNNING', totalNodes: modelNodes.length });
      }
      const rows = new Map<string, any>((await tx.query(`SELECT * FROM node_runs WHERE run_id = $1 FOR UPDATE`, [runId])).rows.map((r) => [r.node_id, r]));
      const outputs = new Map<string, Record<string, unknown>>();
      for (const [id, r] of rows) if (r.status === 'COMPLETED') outputs.set(id, r.output ?? {});
      const statuses = new Map<string, string>([...rows].map(([id, r]) => [id, r.status]));

      // Repeat until nothing changes: cache hits and skips can make further nodes ready at once.
      for (let changed = true; changed;) {
        changed = false;
        for (const node of modelNodes) {
          const nr = rows.get(node.id);
          const step = nextStep(graph, statuses, node.id);
          if (!nr || step === 'none' || step === 'wait') continue;
          changed = true;
          if (step === 'skip') {
            await this.endNode(tx, run, nr, 'SKIPPED', { error: 'an upstream node did not complete' });
            statuses.set(node.id, nr.status);
            continue;
          }
          const mode = this.modeOf(node);
          const withRefs = nodeInput(graph, node, mode, run.input ?? {}, outputs);
          let input: Record<string, unknown>;
          try {
            // Validate with files as URLs (as the engine will see them); keep references for storage and the cache key.
            input = this.catalog.validateInput(mode, mapFileRefs(withRefs, (id) => this.ownUrl(id)), { path: `nodes.${node.id}.input` });
          } catch (err) {
            await this.endNode(tx, run, nr, 'FAILED', { error: (err as Error).message, input: withRefs });
            statuses.set(node.id, nr.status);
            continue;
          }
          const shas = await fileShas(tx, withRefs);
          const key = cacheKey(node.type, nr.sub_model_id, { ...input, ...withRefs }, (id) => shas.get(id) ?? id);
          const hit = await cachedOutput(tx, run.account_id, key);
          if (hit) {
            await this.endNode(tx, run, nr, 'COMPLETED', { output: hit, cached: true, input: withRefs, cacheKey: key });
            statuses.set(node.id, nr.status);
            outputs.set(node.id, hit);
            continue;
          }
          // Charged the price of the input it actually runs with, held before it is queued (nodeCharge.ts).
          const charge = await chargeReadyNode(tx, { accountId: run.account_id, runId, nodeId: node.id, held: nr.reserved_microcredits, mode, input });
          if (!charge.ok) {
            await this.endNode(tx, run, nr, 'FAILED', { error: charge.message, errorCode: charge.code, input: withRefs, cacheKey: key });
            statuses.set(node.id, nr.status);
            continue;
          }
          nr.reserved_microcredits = charge.price;
          await tx.query(q.QUEUE_NODE, [runId, node.id, withRefs, key]);
          nr.status = 'QUEUED';
          statuses.set(node.id, nr.status);
          await this.queue.enqueueRun(tx, { runId, kind: 'workflow', nodeId: node.id }, 120 + (mode.timeoutSeconds ?? 600));
          queued.push(node.id);
        }
      }

      if (!allEnded(statuses.values())) return queued;
      await this.finishRun(tx, run, graph, rows, outputs);
      return queued;
    }
  }

  /**
   * Advances inside a node's settle transaction (one transaction per node: settle, store, mark dependents
   * ready and enqueue them). A failure of the advance itself is rolled back to a savepoint so the settle
   * stands; the settle's stamp lets the sweeper re-queue the advance (runs/queries.ts STALLED_WORKFLOWS).
   */
  private async advanceWithin(tx: PoolClient, runId: string): Promise<string[]> {
    await tx.query('SAVEPOINT advance');
    try {
      const queued = await this.advanceIn(tx, runId);
      await tx.query('RELEASE SAVEPOINT advance');
      return queued;
    } catch (err) {
      if (isConnectionError(err)) throw err;
      await tx.query('ROLLBACK TO SAVEPOINT advance');
      this.log.warn({ runId, err }, 'advancing after a node failed; the sweeper will retry');
      return [];
    }
  }

  private ownUrl(fileId: string): string {
    return `${this.opts.publicUrl()}/v1/files/${fileId}`;
  }

  /** Ends a node that never ran on a worker here (skip, cache hit, bad input), settling its share of the hold. */
  private async endNode(tx: PoolClient, run: any, nr: any, status: 'COMPLETED' | 'FAILED' | 'SKIPPED', x: { error?: string; errorCode?: string; output?: unknown; cached?: boolean; input?: unknown; cacheKey?: string }): Promise<void> {
    const held: bigint = nr.reserved_microcredits;
    await tx.query(
      `UPDATE node_runs SET status = $3, error = $4, output = $5, cached = $6, input = COALESCE($7, input), cache_key = COALESCE($8, cache_key),
         reserved_microcredits = 0, error_code = $9, started_at = COALESCE(started_at, now()), finished_at = now() WHERE run_id = $1 AND node_id = $2`,
      [run.id, nr.node_id, status, x.error ?? null, x.output === undefined ? null : JSON.stringify(x.output), x.cached ?? false, x.input === undefined ? null : JSON.stringify(x.input), x.cacheKey ?? null, x.errorCode ?? null],
    );
    // Cached, skipped and failed nodes cost nothing.
    await release(tx, run.account_id, held, run.id, `node ${nr.node_id} ${x.cached ? 'served from cache' : status.toLowerCase()}`);
    nr.status = status;
    nr.output = x.output ?? null;
    nr.cached = x.cached ?? false;
    if (status === 'COMPLETED') {
      await this.event(tx, run, 'node.completed', { nodeId: nr.node_id, nodeType: nr.node_type, status: 'COMPLETED', cached: x.cached ?? false, output: (await renderOutput(this.files, x.output as never, tx)).output });
    } else if (status === 'FAILED') {
      await this.event(tx, run, 'node.failed', { nodeId: nr.node_id, nodeType: nr.node_type, status: 'FAILED' }, x.error);
    }
  }

  private async finishRun(tx: PoolClient, run: any, graph: Graph, rows: Map<string, any>, outputs: Map<string, Record<string, unknown>>): Promise<void> {
    const all = [...rows.values()];
    const failed = all.filter((r) => r.status === 'FAILED');
    const completed = all.filter((r) => r.status === 'COMPLETED');
    const stored: Record<string, Record<string, unknown>> = {};
    for (const e of graph.edges) {
      const target = graph.nodes.find((n) => n.id === e.target);
      if (target?.type !== 'response') continue;
      const source = graph.nodes.find((n) => n.id === e.source);
      const value = source?.type === 'request' ? (run.input ?? {})[e.sourceHandle] : outputs.get(e.source)?.[e.sourceHandle.replace(/^out:/, '')];
      if (value !== undefined) (stored[e.source] ??= {})[e.sourceHandle] = value;
    }
    const status = failed.length ? 'FAILED' : 'COMPLETED';
    const error = failed.length ? `node ${failed[0]!.node_id} (${failed[0]!.node_type}) failed: ${failed[0]!.error ?? 'unknown error'}` : null;
    const charged = (await tx.query(`SELECT COALESCE(sum(charged_microcredits), 0)::bigint AS c, COALESCE(sum(reserved_microcredits), 0)::bigint AS r FROM node_runs WHERE run_id = $1`, [run.id])).rows[0];
    if (charged.r > 0n) await release(tx, run.account_id, charged.r, run.id, 'run ended');
    await tx.query(
      `UPDATE runs SET status = $2, output = $3, error = $4, finished_at = now(), charged_microcredits = $5, reserved_microcredits = 0 WHERE id = $1`,
      [run.id, status, stored, error, charged.c],
    );
    await tx.query(`UPDATE node_runs SET reserved_microcredits = 0 WHERE run_id = $1`, [run.id]);
    const rendered = (await renderOutput(this.files, stored as never, tx)).output;
    if (status === 'COMPLETED') {
      await this.event(tx, run, 'run.completed', { status, completedNodes: completed.length, failedNodes: 0, outputs: rendered, actualCredits: Number(charged.c) });
    } else {
      await this.event(tx, run, 'run.failed', { status, completedNodes: completed.length, failedNodes: failed.length, failedNodeIds: failed.map((f) => f.node_id) }, error);
    }
    await notify(tx, CHANNELS.runEnded, run.id);
  }

  private event(tx: PoolClient, run: any, type: Parameters<typeof recordEvent>[1]['type'], data: Record<string, unknown>, error?: string | null) {
    return recordEvent(tx, { accountId: run.account_id, runId: run.id, workflowId: run.workflow_id, type, data, error: error ?? null, webhook: run.webhook });
  }

  /**
   * Runs a node on this worker, then — while this worker takes work — the first node its settle made
   * ready, at once: a chain runs node after node on one worker without a queue hop between them. The
   * successor's job is in the queue as well; whichever worker claims it first runs it, the other finds it
   * taken.
   */
  async executeNode(runId: string, nodeId: string): Promise<void> {
    for (let next: string | undefined = nodeId; next;) {
      const queued = await this.runNode(runId, next);
      next = this.tasks.accepting ? queued[0] : undefined;
    }
  }

  /** One node: claim with a lease, the shared leased-task loop, and a settle that advances the run in the same transaction. Returns the nodes it queued. */
  private async runNode(runId: string, nodeId: string): Promise<string[]> {
    const claimed = (await this.db.query(q.CLAIM_NODE, [runId, nodeId, this.workerId, this.opts.leaseSeconds])).rows[0];
    if (!claimed) return [];
    let queued: string[] = [];
    if (claimed.attempts > MAX_NODE_ATTEMPTS) {
      await this.settleNode(claimed, 'FAILED', { error: `the node stopped its worker ${claimed.attempts - 1} times and was given up` }, (next) => { queued = next; });
      return queued;
    }
    const node: GraphNode = (claimed.graph as Graph).nodes.find((n) => n.id === nodeId)!;
    const mode = this.modeOf(node);
    const settled = await this.tasks.run({
      key: `${runId}:${nodeId}`,
      logContext: { runId, nodeId },
      scratchName: `${runId}-${nodeId}-${claimed.attempts}`,
      timeoutAt: Date.now() + (mode.timeoutSeconds ?? 600) * 1000,
      cancelAfter: claimed.cancel_after ? claimed.cancel_after.getTime() : null,
      timeoutMessage: `timed out after ${mode.timeoutSeconds ?? 600} s`,
      heartbeat: async () => (await this.db.query(q.HEARTBEAT_NODE, [runId, nodeId, this.workerId, this.opts.leaseSeconds])).rowCount !== 0,
      execute: (signal, deadline, tmpDir) => {
        const input = mapFileRefs(claimed.input, (id) => this.ownUrl(id)) as Record<string, unknown>;
        const validated = this.catalog.validateInput(mode, input, { path: 'input' });
        return this.runner.run({
          accountId: claimed.account_id, nodeType: node.type, subModelId: claimed.sub_model_id, input: validated, signal, deadline, tmpDir,
          logContext: { runId, nodeId },
          onProgress: (f, message) => void this.db.query(q.NODE_PROGRESS, [runId, nodeId, JSON.stringify([{ at: new Date().toISOString(), progress: f, message: message ?? null }])]).catch(() => {}),
        });
      },
      settleSuccess: async (outputs) => {
        const row = await this.db.tx(async (tx) => {
          const stored = await this.runner.store(tx, claimed.account_id, runId, outputs);
          const settled = await this.settleNodeIn(tx, claimed, 'COMPLETED', { output: stored });
          queued = settled ? await this.advanceWithin(tx, runId) : [];
          return settled;
        });
        this.observe(row);
        return row !== undefined;
      },
      settleFailure: (error, errorCode) => this.settleNode(claimed, 'FAILED', { error, errorCode }, (next) => { queued = next; }),
      handBack: () => this.handBack(runId, nodeId),
    });
    return settled ? queued : [];
  }

  /** Gives a node this worker holds back to the queue on shutdown (not a crash: the attempt does not count). */
  private async handBack(runId: string, nodeId: string): Promise<void> {
    await this.db.tx(async (tx) => {
      const r = await tx.query(q.HAND_BACK_NODE, [runId, nodeId, this.workerId]);
      if (r.rowCount) await this.queue.enqueueRun(tx, { runId, kind: 'workflow', nodeId }, 120);
    });
  }

  /** True if this call ended the node; the run is advanced in the same transaction and `onQueued` told what that queued. */
  private async settleNode(claimed: any, status: 'COMPLETED' | 'FAILED', x: { output?: unknown; error?: string; errorCode?: string | null }, onQueued: (queued: string[]) => void): Promise<boolean> {
    const row = await this.db.tx(async (tx) => {
      const settled = await this.settleNodeIn(tx, claimed, status, x);
      onQueued(settled ? await this.advanceWithin(tx, claimed.run_id) : []);
      return settled;
    });
    this.observe(row);
    return row !== undefined;
  }

  /** Called after the settle committed, so a rolled-back (retried or refused) settle does not count. */
  private observe(settled: any): void {
    if (settled) this.opts.metrics?.observeRun('workflow_node', settled.node_type, settled.status, settled.started_at, settled.finished_at);
  }

  /** Ends a node this worker ran, exactly once (guarded by state and lease). Returns the settled row, if it was ours; the caller then advances the run. */
  private async settleNodeIn(tx: PoolClient, claimed: any, status: 'COMPLETED' | 'FAILED', x: { output?: unknown; error?: string; errorCode?: string | null }): Promise<any | undefined> {
    // Locks in the same order as advance and cancel (the run, then its nodes), so they cannot deadlock.
    const run = (await tx.query(`SELECT * FROM runs WHERE id = $1 FOR UPDATE`, [claimed.run_id])).rows[0];
    const before = (await tx.query(`SELECT reserved_microcredits FROM node_runs WHERE run_id = $1 AND node_id = $2 FOR UPDATE`, [claimed.run_id, claimed.node_id])).rows[0];
    const r = await tx.query(q.SETTLE_NODE,
      [claimed.run_id, claimed.node_id, status, x.output === undefined ? null : JSON.stringify(x.output), x.error ?? null, this.workerId, x.errorCode ?? null]);
    if (!r.rows[0]) return undefined; // canceled meanwhile, or another worker took over
    const held: bigint = before.reserved_microcredits;
    if (status === 'COMPLETED') {
      await capture(tx, run.account_id, held, run.id, `node ${claimed.node_id}`);
      await storeCachedOutput(tx, { accountId: run.account_id, key: claimed.cache_key, nodeType: claimed.node_type, output: x.output, workflowId: run.workflow_id, runId: run.id });
      await this.event(tx, run, 'node.completed', { nodeId: claimed.node_id, nodeType: claimed.node_type, status: 'COMPLETED', cached: false, output: (await renderOutput(this.files, x.output as never, tx)).output });
    } else {
      await release(tx, run.account_id, held, run.id, `node ${claimed.node_id} failed`);
      await this.event(tx, run, 'node.failed', { nodeId: claimed.node_id, nodeType: claimed.node_type, status: 'FAILED' }, x.error);
    }
    // The caller advances the run in this transaction (advanceWithin); the stamp tells the sweeper it is in hand.
    await tx.query(`UPDATE runs SET enqueued_at = now() WHERE id = $1`, [run.id]);
    return r.rows[0];
  }
}
