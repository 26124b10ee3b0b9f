import type { Logger } from 'pino';
import type { PoolClient } from 'pg';
import { isConnectionError, type Db, type Queryable } from '../db/pool.js';
import { CHANNELS, notify } from '../db/notifier.js';
import { release } from '../ledger/ledger.js';
import { announceEvent, eventRow, recordEvent, recordEvents } from '../events/outbox.js';
import { runEndEvent } from '../events/runEnd.js';
import { OutputDeltas } from '../events/outputDeltas.js';
import type { Catalog } from '../catalog/catalog.js';
import type { FileService } from '../files/service.js';
import type { JobQueue } from '../queue/queue.js';
import { EngineRunner } from '../execution/engineRunner.js';
import type { RouteReport } from '../execution/routing.js';
import type { EngineOutputs } from '../engines/types.js';
import type { LeasedTaskRunner } from '../execution/leasedTask.js';
import { renderOutput } from '../files/render.js';
import type { RunObserver } from '../runs/observer.js';
import { mapFileRefs } from './inputs.js';
import { allEnded, chargeReadyNode, hasFiles, nextStep, prepareNode } from './readyNode.js';
import type { GraphNode } from './types.js';
import type { ModeDef } from '../catalog/types.js';
import * as q from './queries.js';
import * as nodeSql from '../runs/queries/nodes.js';
import * as runSql from '../runs/queries/workflowRuns.js';
import { runPlan, type RunPlan } from './runPlan.js';
import { cachedOutput, cachedOutputs, fileShas, usableOutput } from './nodeCache.js';
import { annotate, inSpan } from '../tracing/tracing.js';
import { countOf, preparedRowOf, rowOf, rowsOf } from '../db/typed.js';

const MAX_NODE_ATTEMPTS = 3;
/** Run plans a process keeps (RunPlan): the least recently used is dropped past this many. */
const PLANS_KEPT = 256;

/** The node a settle leases to its worker in the same statement (WorkflowExecutor.leaseCandidate). */
interface LeaseCandidate extends NextNode {
  withRefs: Record<string, unknown>;
  key: string;
  price: bigint;
}

/** A ready node an advance starts with others it found at once (WorkflowExecutor.startReady), prepared (readyNode.ts prepareNode). */
interface ReadyForQueue {
  node: GraphNode;
  state: NodeState;
  mode: ModeDef;
  withRefs: Record<string, unknown>;
  input: Record<string, unknown>;
  key: string;
}

/** How an advance ends a node that never ran on a worker (WorkflowExecutor.advanceIn's `end`). */
type EndNode = (node: GraphNode, state: NodeState, status: 'COMPLETED' | 'FAILED' | 'SKIPPED', x: EndDetails) => Promise<void>;

/** A node's state as an advance decides on it, and what it holds. */
interface NodeState {
  status: string;
  held: bigint;
}

/** A node this worker took (runs/queries/nodes.ts claimNodeSql: 'taken' or 'started'). */
type NodeTask = nodeSql.NodeTaskRow;

/** A ready node an advance leased to this worker to run next (runs/queries/nodes.ts claimNodeSql 'leased'), with the input it validated. */
interface NextNode {
  nodeId: string;
  /** The input the advance that leased it validated; none for a node taken from the queue (runNode validates it). */
  input?: Record<string, unknown>;
  /** The node as its start answered it, when that start went with the commit that leased it (WorkflowExecutor.startWithCommit). */
  task?: NodeTask;
  /** Taken from the queue with a settle's commit (a fan-out's sibling), its own job left queued (WorkflowExecutor.dropJobsOf). */
  sibling?: boolean;
}

/** What an advance did: the nodes it queued for any worker, and the one it leased to this worker. */
interface Advanced {
  queued: string[];
  next?: NextNode;
  /** Some node of the run is still QUEUED as the advance leaves it (a fan-out's siblings: startWithCommit). */
  queuedLeft?: boolean;
}

/** How a node that never ran on a worker ended (endNode). */
interface EndDetails {
  error?: string;
  errorCode?: string;
  output?: unknown;
  cached?: boolean;
  input?: unknown;
  cacheKey?: string;
}

/**
 * How a node this worker ran ended: its engine's outputs (stored by the settle), or why it failed; a routed
 * node's `route` says which route served it (its price is the node's charge) and why others did not.
 */
type NodeEnd = ({ status: 'COMPLETED'; outputs: EngineOutputs } | { status: 'FAILED'; error: string; errorCode: string | null }) & { route?: RouteReport };

/** A settled node as SETTLE_NODE answers it. */
type SettledNode = q.SettledNodeRow;

/**
 * The one place that schedules workflow nodes (ComfyUI's execution loop, made durable). All state lives in
 * PostgreSQL: an `advance` step, serialised per run by a row lock, finds nodes whose inputs are ready,
 * serves them from the node cache or queues them as node jobs; each node job runs its engine like a
 * standalone run and advances the run in its settle. A process dying anywhere leaves rows the sweeper resumes.
 */
export class WorkflowExecutor {
  /** RunPlans by run id, least recently used first. */
  private readonly plans = new Map<string, RunPlan>();

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
    private readonly opts: { leaseSeconds: number; metrics?: RunObserver },
  ) {}

  private modeOf(node: GraphNode) {
    return this.catalog.resolveNode(node.type, node.subModelId, { requireSubModel: false }).mode;
  }

  /** The run's plan, read at most once while this process keeps it; undefined if there is no such workflow run. */
  private async planOf(db: Queryable, runId: string): Promise<RunPlan | undefined> {
    const known = this.plans.get(runId);
    if (known) {
      this.plans.delete(runId);
      this.plans.set(runId, known);
      return known;
    }
    const row = await rowOf<runSql.RunPlanRow>(db, runSql.RUN_PLAN, [runId]);
    if (!row) return undefined;
    const plan = runPlan(runId, row);
    if (this.plans.size >= PLANS_KEPT) this.plans.delete(this.plans.keys().next().value!);
    this.plans.set(runId, plan);
    return plan;
  }

  /** A workflow job: advances the run, then runs the first node that became ready right here (no queue hop). */
  async advanceAndRun(runId: string): Promise<void> {
    const { next } = await this.advance(runId, this.tasks.accepting);
    if (next) await this.runFrom(runId, next.nodeId, next);
  }

  /** Advances a run in its own transaction; `claimNext`: lease the first node it finds ready to this worker rather than queue it. */
  private async advance(runId: string, claimNext: boolean): Promise<Advanced> {
    const done = await this.db.txThen(async (tx) => {
      const plan = await this.planOf(tx, runId);
      if (!plan) return { queued: [] };
      const run = await rowOf<{ status: string }>(tx, runSql.LOCK_RUN, [runId]);
      if (!run) return { queued: [] };
      const states = new Map<string, NodeState>((await rowsOf<nodeSql.NodeStateRow>(tx, nodeSql.NODE_STATES, [runId])).map((r) => [r.node_id, { status: r.status, held: r.reserved_microcredits }]));
      return this.advanceIn(tx, plan, run.status, states, new Map(), claimNext);
    }, (advanced: Advanced) => this.startWithCommit(runId, advanced));
    return { ...done.result, next: this.started(done.result.next, done.then) };
  }

  /**
   * What an advance sends with its COMMIT (Db.txThen), so the node this worker runs next starts in the round
   * trip that commits its predecessor's end rather than one after it: the start of the node it leased here,
   * or, when it leased none and nodes of the run wait in the queue (a fan-out), the take of one of them (a
   * sibling of the node just settled: no job fetch, no queue hop). Nothing while this worker is stopping.
   */
  private startWithCommit(runId: string, advanced: Advanced | undefined): string | undefined {
    if (!advanced || !this.tasks.accepting) return undefined;
    if (advanced.next) return nodeSql.startNodeLiteral(runId, advanced.next.nodeId, this.workerId);
    return advanced.queuedLeft ? nodeSql.takeQueuedNodeLiteral(runId, this.workerId, this.opts.leaseSeconds) : undefined;
  }

  /** The node to run next with its start's (or take's) answer; undefined if there is none, or it was canceled or taken meanwhile. */
  private started(next: NextNode | undefined, start: { rows: nodeSql.NodeTaskRow[] } | undefined): NextNode | undefined {
    const task = start?.rows[0];
    if (!next) return task && { nodeId: task.node_id, task, sibling: true };
    if (!start) return next;
    return task ? { ...next, task } : undefined;
  }

  /**
   * Finds nodes whose inputs are ready and serves them from the cache, leases the first to this worker
   * (`claimNext`, unless the settle before leased one already: `leased`) or queues them (their jobs are
   * sent in this transaction); finishes the run when every node ended. The run is locked and `states` read
   * after the lock; `outputs` holds the outputs already known here (the rest are read as ready nodes need them).
   */
  private async advanceIn(tx: PoolClient, plan: RunPlan, runStatus: string | undefined, states: Map<string, NodeState>, outputs: Map<string, Record<string, unknown>>, claimNext: boolean, leased?: NextNode): Promise<Advanced> {
    const advanced: Advanced = { queued: [], next: leased };
    if (runStatus !== 'QUEUED' && runStatus !== 'RUNNING') return advanced;
    const runId = plan.runId;
    if (runStatus === 'QUEUED') {
      await tx.query(runSql.START_RUN, [runId]);
      await this.event(tx, plan, 'run.started', { status: 'RUNNING', totalNodes: plan.modelNodes.length });
    }
    const statuses = new Map<string, string>([...states].map(([id, s]) => [id, s.status]));
    // Nodes served from the cache are ended together (endCached): a cached re-run's nodes cost one lookup each, not three statements.
    const cached: Array<{ node: GraphNode; held: bigint; x: EndDetails }> = [];
    const flush = async () => {
      if (cached.length) await this.endCached(tx, plan, cached.splice(0));
    };
    const end: EndNode = async (node, state, status, x) => {
      if (status === 'COMPLETED' && x.cached) cached.push({ node, held: state.held, x });
      else {
        await flush(); // its event after theirs
        await this.endNode(tx, plan, node, state.held, status, x);
      }
      state.status = status;
      state.held = 0n;
      statuses.set(node.id, status);
    };

    // Repeat until nothing changes: cache hits and skips can make further nodes ready at once.
    for (let changed = true; changed;) {
      changed = false;
      // Ready nodes dealt with together once the pass has found them all (startReady below): all but the
      // first this worker may lease, which is looked up in the cache and leased at once.
      const ready: ReadyForQueue[] = [];
      let first = true;
      for (const node of plan.modelNodes) {
        const state = states.get(node.id);
        const step = nextStep(plan.graph, statuses, node.id, plan.preds);
        if (!state || step === 'none' || step === 'wait') continue;
        changed = true;
        if (step === 'skip') {
          await end(node, state, 'SKIPPED', { error: 'an upstream node did not complete' });
          continue;
        }
        const missing = (plan.preds.get(node.id) ?? []).filter((p) => statuses.get(p) === 'COMPLETED' && !outputs.has(p));
        if (missing.length) for (const r of await rowsOf<nodeSql.NodeOutputRow>(tx, nodeSql.NODE_OUTPUTS, [runId, missing])) outputs.set(r.node_id, r.output ?? {});
        const prepared = (await prepareNode(this.catalog, plan, node, outputs, { url: (id) => this.ownUrl(id), shas: (refs) => fileShas(tx, refs) }))!;
        if (!prepared.ok) {
          await end(node, state, 'FAILED', { error: prepared.error, input: prepared.withRefs });
          continue;
        }
        const { mode, withRefs, input, key } = prepared;
        let hit: Record<string, unknown> | undefined;
        const leaseHere = claimNext && !advanced.next && first;
        if (leaseHere) first = false;
        if (leaseHere && prepared.price === state.held) {
          // The node this worker runs next, its hold already its price: cache lookup and claim in one statement.
          const r = (await preparedRowOf<q.LeaseOrCachedRow>(tx, 'atelier_claim_ready_node', q.LEASE_READY_NODE_UNLESS_CACHED,
            [runId, node.id, withRefs, key, state.held, this.workerId, this.opts.leaseSeconds, plan.accountId]))!;
          if (r.claimed) {
            state.status = 'RUNNING';
            statuses.set(node.id, state.status);
            advanced.next = { nodeId: node.id, input };
            continue;
          }
          hit = r.cached ? await usableOutput(tx, r.cached) : undefined;
        } else if (leaseHere) {
          hit = await cachedOutput(tx, plan.accountId, key);
        } else {
          // Looked up in the cache, charged and leased or queued with the other nodes this pass finds ready.
          ready.push({ node, state, mode, withRefs, input, key });
          continue;
        }
        if (hit) {
          await end(node, state, 'COMPLETED', { output: hit, cached: true, input: withRefs, cacheKey: key });
          outputs.set(node.id, hit);
          continue;
        }
        // Charged the price of the input it actually runs with, held before it runs (readyNode.ts chargeReadyNode).
        const charge = await chargeReadyNode(tx, { accountId: plan.accountId, runId, nodeId: node.id, held: state.held, mode, input });
        if (!charge.ok) {
          await end(node, state, 'FAILED', { error: charge.message, errorCode: charge.code, input: withRefs, cacheKey: key });
          continue;
        }
        state.held = charge.price;
        await tx.query(nodeSql.LEASE_READY_NODE, [runId, node.id, withRefs, key, charge.price, this.workerId, this.opts.leaseSeconds]);
        state.status = 'RUNNING';
        statuses.set(node.id, state.status);
        advanced.next = { nodeId: node.id, input };
      }
      if (ready.length) await this.startReady(tx, plan, ready, statuses, end, outputs, claimNext, advanced);
    }

    await flush();
    if (allEnded(statuses.values())) await this.finishRun(tx, plan);
    else advanced.queuedLeft = [...statuses.values()].includes('QUEUED');
    return advanced;
  }

  /**
   * The ready nodes one pass of an advance found after the first (a fan-out's): one cache lookup for all of
   * them, then each hit ends served from the cache, each miss is charged its price (readyNode.ts
   * chargeReadyNode), the first leased to this worker if it takes one (`claimNext`) and has none yet, and the
   * rest queued in two statements, their rows and their jobs, whatever their number.
   */
  private async startReady(tx: PoolClient, plan: RunPlan, ready: ReadyForQueue[], statuses: Map<string, string>, end: EndNode, outputs: Map<string, Record<string, unknown>>, claimNext: boolean, advanced: Advanced): Promise<void> {
    const hits = await cachedOutputs(tx, plan.accountId, [...new Set(ready.map((r) => r.key))]);
    const queued: Array<ReadyForQueue & { price: bigint }> = [];
    for (const r of ready) {
      const hit = hits.get(r.key);
      if (hit) {
        await end(r.node, r.state, 'COMPLETED', { output: hit, cached: true, input: r.withRefs, cacheKey: r.key });
        outputs.set(r.node.id, hit);
        continue;
      }
      const charge = await chargeReadyNode(tx, { accountId: plan.accountId, runId: plan.runId, nodeId: r.node.id, held: r.state.held, mode: r.mode, input: r.input });
      if (!charge.ok) {
        await end(r.node, r.state, 'FAILED', { error: charge.message, errorCode: charge.code, input: r.withRefs, cacheKey: r.key });
        continue;
      }
      if (claimNext && !advanced.next) {
        await tx.query(nodeSql.LEASE_READY_NODE, [plan.runId, r.node.id, r.withRefs, r.key, charge.price, this.workerId, this.opts.leaseSeconds]);
        r.state.status = 'RUNNING';
        r.state.held = charge.price;
        statuses.set(r.node.id, 'RUNNING');
        advanced.next = { nodeId: r.node.id, input: r.input };
        continue;
      }
      queued.push({ ...r, price: charge.price });
    }
    if (queued.length === 0) return;
    await tx.query(nodeSql.QUEUE_NODES, [plan.runId, queued.map((r) => r.node.id), queued.map((r) => JSON.stringify(r.withRefs)), queued.map((r) => r.key), queued.map((r) => r.price)]);
    await this.queue.enqueueNodes(tx, plan.runId, queued.map((r) => ({ nodeId: r.node.id, expireInSeconds: 120 + (r.mode.timeoutSeconds ?? 600) })));
    for (const r of queued) {
      r.state.status = 'QUEUED';
      r.state.held = r.price;
      statuses.set(r.node.id, 'QUEUED');
    }
    advanced.queued.push(...queued.map((r) => r.node.id));
  }

  private ownUrl(fileId: string): string {
    return this.files.stableUrlOf(fileId);
  }

  /** Ends a node that never ran on a worker here (skip, cache hit, bad input), settling its share of the hold. */
  private async endNode(tx: PoolClient, plan: RunPlan, node: GraphNode, held: bigint, status: 'COMPLETED' | 'FAILED' | 'SKIPPED', x: EndDetails): Promise<void> {
    await tx.query(
      nodeSql.END_NODE,
      [plan.runId, node.id, status, x.error ?? null, x.output === undefined ? null : JSON.stringify(x.output), x.cached ?? false, x.input === undefined ? null : JSON.stringify(x.input), x.cacheKey ?? null, x.errorCode ?? null],
    );
    // Cached, skipped and failed nodes cost nothing.
    await release(tx, plan.accountId, held, plan.runId, `node ${node.id} ${x.cached ? 'served from cache' : status.toLowerCase()}`);
    if (status === 'COMPLETED') {
      await this.event(tx, plan, 'node.completed', { nodeId: node.id, nodeType: node.type, status: 'COMPLETED', cached: x.cached ?? false, output: (await renderOutput(this.files, x.output as never, tx)).output });
    } else if (status === 'FAILED') {
      await this.event(tx, plan, 'node.failed', { nodeId: node.id, nodeType: node.type, status: 'FAILED' }, x.error);
    }
  }

  /** endNode for nodes served from the cache, in one statement for the rows and one for the events (in their order). */
  private async endCached(tx: PoolClient, plan: RunPlan, ends: Array<{ node: GraphNode; held: bigint; x: EndDetails }>): Promise<void> {
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    await tx.query(nodeSql.END_CACHED_NODES, [plan.runId, ends.map((e) => e.node.id), ends.map((e) => json(e.x.output)), ends.map((e) => json(e.x.input)), ends.map((e) => e.x.cacheKey ?? null)]);
    // Cached nodes cost nothing: each one's hold is released, one ledger row each as endNode writes.
    for (const e of ends) await release(tx, plan.accountId, e.held, plan.runId, `node ${e.node.id} served from cache`);
    const events = [];
    for (const e of ends) {
      const data = { nodeId: e.node.id, nodeType: e.node.type, status: 'COMPLETED', cached: true, output: (await renderOutput(this.files, e.x.output as never, tx)).output };
      events.push({ accountId: plan.accountId, runId: plan.runId, workflowId: plan.workflowId, type: 'node.completed' as const, data, error: null, webhook: plan.webhook });
    }
    await recordEvents(tx, events);
  }

  private async finishRun(tx: PoolClient, plan: RunPlan): Promise<void> {
    const toResponse = plan.graph.edges.filter((e) => plan.nodes.get(e.target)?.type === 'response');
    const all = await rowsOf<nodeSql.NodeEndRow>(tx, nodeSql.NODE_ENDS, [plan.runId, toResponse.map((e) => e.source)]);
    const failed = all.filter((r) => r.status === 'FAILED');
    const completed = all.filter((r) => r.status === 'COMPLETED');
    const outputs = new Map<string, Record<string, unknown>>(completed.map((r) => [r.node_id, r.output ?? {}]));
    const stored: Record<string, Record<string, unknown>> = {};
    for (const e of toResponse) {
      const source = plan.nodes.get(e.source);
      const value = source?.type === 'request' ? plan.input[e.sourceHandle] : outputs.get(e.source)?.[e.sourceHandle.replace(/^out:/, '')];
      if (value !== undefined) (stored[e.source] ??= {})[e.sourceHandle] = value;
    }
    const status = failed.length ? 'FAILED' : 'COMPLETED';
    const error = failed.length ? `node ${failed[0]!.node_id} (${failed[0]!.node_type}) failed: ${failed[0]!.error ?? 'unknown error'}` : null;
    const charged = (await rowOf<nodeSql.NodeChargesRow>(tx, nodeSql.NODE_CHARGES, [plan.runId]))!;
    if (charged.r > 0n) await release(tx, plan.accountId, charged.r, plan.runId, 'run ended');
    await tx.query(runSql.FINISH_WORKFLOW_RUN, [plan.runId, status, stored, error, charged.c]);
    await tx.query(nodeSql.DROP_NODE_HOLDS, [plan.runId]);
    const rendered = (await renderOutput(this.files, stored as never, tx)).output;
    const ended = runEndEvent(status === 'COMPLETED'
      ? { status, completedNodes: completed.length, outputs: rendered, actualCredits: Number(charged.c) }
      : { status, completedNodes: completed.length, failedNodeIds: failed.map((f) => f.node_id) });
    await this.event(tx, plan, ended.type, ended.data, error);
    await notify(tx, CHANNELS.runEnded, plan.runId);
    annotate({ 'atelier.run.status': status, 'atelier.run.charged_microcredits': charged.c });
    this.plans.delete(plan.runId);
  }

  private event(tx: PoolClient, plan: RunPlan, type: Parameters<typeof recordEvent>[1]['type'], data: Record<string, unknown>, error?: string | null) {
    return recordEvent(tx, { accountId: plan.accountId, runId: plan.runId, workflowId: plan.workflowId, type, data, error: error ?? null, webhook: plan.webhook });
  }

  /** A node job: a node queued for any worker, or re-queued after its worker died or stopped. */
  executeNode(runId: string, nodeId: string): Promise<void> {
    return this.runFrom(runId, nodeId);
  }

  /**
   * Runs a node on this worker, then — while this worker takes work — the node its settle leased to this
   * worker, at once: a chain runs node after node on one worker with no queue hop and no job between them
   * (other nodes made ready at the same time are queued for any worker). A leased node this worker will
   * not start because it is stopping is handed back to the queue.
   */
  private async runFrom(runId: string, nodeId: string, leased?: NextNode): Promise<void> {
    // Siblings taken here and settled: their jobs, still queued, would only find them ended (dropJobsOf).
    const ended: string[] = [];
    try {
      for (let next: NextNode | undefined = leased, id: string | undefined = nodeId; id;) {
        if (next && !this.tasks.accepting) {
          await this.handBack(runId, id);
          return;
        }
        const r = await this.runNode(runId, id, next);
        if (r.settled && next?.sibling) ended.push(id);
        next = r.next;
        id = next?.nodeId;
      }
    } finally {
      if (ended.length) this.dropJobsOf(runId, ended);
    }
  }

  /**
   * Deletes the queued jobs of nodes that ended (siblings this worker took without their job), after the
   * fact and off the run's path: each would otherwise be fetched, checked and completed for nothing, ahead
   * of the jobs queued after it. A job already fetched is left alone; one that is missed does no harm.
   */
  private dropJobsOf(runId: string, nodeIds: string[]): void {
    this.queue.dropNodeJobs(this.db, runId, nodeIds).catch((err) => this.log.warn({ runId, err }, 'dropping the jobs of nodes taken without them failed; they will find the nodes ended'));
  }

  /**
   * One node: taken with a lease (claimed from the queue, or started after an advance leased it here), the
   * shared leased-task loop, and a settle that advances the run in the same transaction. Returns the node
   * that advance leased to this worker, if any.
   */
  private async runNode(runId: string, nodeId: string, leased?: NextNode): Promise<{ settled: boolean; next?: NextNode }> {
    const plan = await this.planOf(this.db, runId);
    if (!plan) return { settled: false };
    const task: NodeTask | undefined = leased?.task ?? (leased
      ? await preparedRowOf<nodeSql.NodeTaskRow>(this.db, 'atelier_start_node', nodeSql.START_NODE, [runId, nodeId, this.workerId])
      : await rowOf<nodeSql.NodeTaskRow>(this.db, nodeSql.TAKE_NODE, [runId, nodeId, this.workerId, this.opts.leaseSeconds]));
    if (!task) return { settled: false }; // canceled, ended, or held by a live worker
    if (task.attempts > MAX_NODE_ATTEMPTS) {
      return this.settle(plan, task, { status: 'FAILED', error: `the node stopped its worker ${task.attempts - 1} times and was given up`, errorCode: null });
    }
    let next: NextNode | undefined;
    // A routed model's node learns here which route served it, or why each failed (execution/routing.ts).
    let route: RouteReport | undefined;
    const settleWith = async (end: NodeEnd) => {
      const s = await this.settle(plan, task, end);
      next = s.next;
      return s.settled;
    };
    const node = plan.nodes.get(nodeId)!;
    const mode = this.modeOf(node);
    const settled = await inSpan('atelier.node', { 'atelier.run.id': runId, 'atelier.node.id': nodeId, 'atelier.model': node.type, 'atelier.sub_model': task.sub_model_id, 'atelier.microcredits.reserved': task.reserved_microcredits }, () => this.tasks.run({
      key: `${runId}:${nodeId}`,
      logContext: { runId, nodeId },
      scratchName: `${runId}-${nodeId}-${task.attempts}`,
      timeoutAt: Date.now() + (mode.timeoutSeconds ?? 600) * 1000,
      cancelAfter: plan.cancelAfter ? plan.cancelAfter.getTime() : null,
      timeoutMessage: `timed out after ${mode.timeoutSeconds ?? 600} s`,
      heartbeat: async () => (await countOf(this.db, nodeSql.HEARTBEAT_NODE, [runId, nodeId, this.workerId, this.opts.leaseSeconds])) !== 0,
      execute: (signal, deadline, tmpDir) => {
        // A node leased by this worker's advance runs with the input that advance validated; one from the queue is validated here.
        const validated = leased?.input ?? this.catalog.validateInput(mode, mapFileRefs(task.input, (id) => this.ownUrl(id)), { path: 'input' });
        return this.runner.run({
          accountId: plan.accountId, nodeType: node.type, subModelId: task.sub_model_id, input: validated, signal, deadline, tmpDir,
          logContext: { runId, nodeId },
          onProgress: (f, message) => void this.db.query(nodeSql.NODE_PROGRESS, [runId, nodeId, JSON.stringify([{ at: new Date().toISOString(), progress: f, message: message ?? null }])]).catch(() => {}),
          deltas: new OutputDeltas(this.db, runId, nodeId),
          onRoute: (r) => (route = r),
        });
      },
      settleSuccess: (outputs) => settleWith({ status: 'COMPLETED', outputs, route }),
      settleFailure: (error, errorCode) => settleWith({ status: 'FAILED', error, errorCode, route }),
      handBack: () => this.handBack(runId, nodeId),
    }), { parent: plan.traceParent });
    return settled ? { settled, next } : { settled };
  }

  /** Gives a node this worker holds back to the queue on shutdown (not a crash: the attempt does not count). */
  private async handBack(runId: string, nodeId: string): Promise<void> {
    await this.db.tx(async (tx) => {
      if (await countOf(tx, nodeSql.HAND_BACK_NODE, [runId, nodeId, this.workerId])) await this.queue.enqueueRun(tx, { runId, kind: 'workflow', nodeId }, 120);
    });
  }

  /**
   * Ends a node this worker ran and advances the run, in one transaction (settle, store, mark dependents
   * ready, lease the next to this worker and queue the rest). When the advance itself fails (other than
   * by a lost connection) that transaction is rolled back and the node is settled alone in another: the
   * settle stands, and its stamp lets the sweeper re-queue the advance (runs/queries.ts STALLED_WORKFLOWS).
   * A transaction and a retry rather than a savepoint, which cost every node a round trip. `settled`:
   * this call ended the node; `next`: the node the advance leased to this worker, if any.
   */
  private async settle(plan: RunPlan, task: NodeTask, end: NodeEnd): Promise<{ settled: boolean; next?: NextNode }> {
    // The run is locked by a statement sent with BEGIN, in one round trip, unless there are files to store
    // first: the run stays unlocked while they are written (the other branches' settles would wait on it).
    const lockWithBegin = end.status === 'FAILED' || !EngineRunner.writesFiles(end.outputs);
    // The node it leased here starts with its COMMIT (startWithCommit).
    const settleIn = async (advance: boolean) => {
      const r = await this.db.txThen(
        (tx, first) => this.settleIn(tx, plan, task, end, advance, first?.rows[0]?.status),
        (s) => this.startWithCommit(plan.runId, s?.advanced),
        lockWithBegin ? { first: runSql.lockRunLiteral(plan.runId) } : {},
      );
      return r.result && { ...r.result, advanced: { ...r.result.advanced, next: this.started(r.result.advanced.next, r.then) } };
    };
    let done: { row: SettledNode; advanced: Advanced } | undefined;
    try {
      done = await settleIn(true);
    } catch (err) {
      if (!(err instanceof AdvanceFailed)) throw err;
      this.log.warn({ runId: plan.runId, err: err.cause }, 'advancing after a node ended failed; the sweeper will retry');
      done = await settleIn(false);
    }
    // After the commit, so a rolled-back (retried or refused) settle does not count. A completed node is charged what it held, or its served route's price (SETTLE_NODE).
    if (done) annotate({ 'atelier.node.status': done.row.status, 'atelier.microcredits.charged': done.row.charged }, end.status === 'FAILED' ? end.error : null);
    if (done) this.opts.metrics?.observeRun('workflow_node', done.row.node_type, done.row.status, done.row.started_at, done.row.finished_at);
    return { settled: done !== undefined, next: done?.advanced.next };
  }

  /**
   * The node a completed node's settle can lease to this worker in the same statement (SETTLE_NODE): its
   * first successor whose only predecessor that runs is this node, with the input, cache key and price it
   * will have, all known here already. None when its input refers to files (the cache key takes their
   * content hashes, from the database) or does not validate or price: the advance then deals with it.
   */
  private async leaseCandidate(plan: RunPlan, nodeId: string, output: Record<string, unknown>): Promise<LeaseCandidate | undefined> {
    const node = (plan.succs.get(nodeId) ?? []).find((n) => plan.preds.get(n.id)!.every((p) => p === nodeId || !plan.runs.has(p)));
    if (!node) return undefined;
    // No database here: a node whose input refers to files is left to the advance.
    const p = await prepareNode(this.catalog, plan, node, new Map([[nodeId, output]]), { url: (id) => this.ownUrl(id), shas: async (refs) => (hasFiles(refs) ? undefined : new Map()) });
    if (!p?.ok || p.price === undefined) return undefined;
    return { nodeId: node.id, input: p.input, withRefs: p.withRefs, key: p.key, price: p.price };
  }

  /**
   * Ends a node this worker ran, exactly once (guarded by state and lease; queries.ts SETTLE_NODE), its
   * outputs stored, then (`advance`) advances the run in the same transaction. `locked`: the run's status
   * if the caller locked it already. Undefined if the node was not ours to end any more (canceled meanwhile,
   * or taken over).
   */
  private async settleIn(tx: PoolClient, plan: RunPlan, task: NodeTask, end: NodeEnd, advance: boolean, locked: string | undefined): Promise<{ row: SettledNode; advanced: Advanced } | undefined> {
    const output = end.status === 'COMPLETED' ? await this.runner.store(tx, plan.accountId, plan.runId, end.outputs, { nodeType: task.node_type, subModelId: task.sub_model_id }) : undefined;
    // Locks in the same order as advance and cancel (the run, then its nodes), so they cannot deadlock.
    const runStatus: string | undefined = locked ?? (await preparedRowOf<{ status: string }>(tx, 'atelier_lock_run', runSql.LOCK_RUN, [plan.runId]))?.status;
    const nodeId = task.node_id;
    const ev = eventRow({
      accountId: plan.accountId, runId: plan.runId, workflowId: plan.workflowId, webhook: plan.webhook,
      ...(end.status === 'COMPLETED'
        ? { type: 'node.completed', data: { nodeId, nodeType: task.node_type, status: end.status, cached: false, output: (await renderOutput(this.files, output!, tx)).output }, error: null }
        : { type: 'node.failed', data: { nodeId, nodeType: task.node_type, status: end.status }, error: end.error }),
    });
    const claimNext = advance && this.tasks.accepting;
    const candidate = claimNext && output && runStatus === 'RUNNING' ? await this.leaseCandidate(plan, nodeId, output) : undefined;
    const row = await preparedRowOf<SettledNode>(tx, 'atelier_settle_node', q.SETTLE_NODE, [
      plan.runId, nodeId, end.status, output === undefined ? null : JSON.stringify(output),
      end.status === 'FAILED' ? end.error : null, this.workerId, end.status === 'FAILED' ? end.errorCode : null,
      plan.accountId, end.status === 'COMPLETED' ? `node ${nodeId}` : `node ${nodeId} failed`,
      ev.eventId, ev.payload.type, ev.payload, ev.delivery?.url ?? null, ev.delivery?.headers ?? null, plan.workflowId,
      !advance, candidate?.nodeId ?? null, candidate?.withRefs ?? null, candidate?.key ?? null, candidate?.price ?? null, this.opts.leaseSeconds,
      end.route?.chargeMicrocredits ?? null, end.route ? JSON.stringify({ served: end.route.served, skipped: end.route.skipped }) : null,
    ]).catch((err) => {
      // Leasing the next node is the advance's first step: if the statement failed, the node is settled alone.
      throw candidate && !isConnectionError(err) ? new AdvanceFailed(err) : err;
    });
    if (!row) return undefined; // canceled meanwhile, or another worker took over
    await announceEvent(tx, plan.runId, row.event_row, ev.delivery !== null);
    if (!advance) return { row, advanced: { queued: [] } };
    // The states this statement changed as it left them; the others as they were when the run was locked.
    const states = new Map<string, NodeState>(row.states.map(([id, s, held]) => [id, { status: s, held: BigInt(held) }]));
    states.set(nodeId, { status: end.status, held: 0n });
    const leased = candidate && row.leased === candidate.nodeId ? { nodeId: candidate.nodeId, input: candidate.input } : undefined;
    if (leased) states.set(leased.nodeId, { status: 'RUNNING', held: candidate!.price });
    const outputs = new Map<string, Record<string, unknown>>();
    if (output) outputs.set(nodeId, output);
    try {
      return { row, advanced: await this.advanceIn(tx, plan, runStatus, states, outputs, claimNext, leased) };
    } catch (err) {
      if (isConnectionError(err)) throw err;
      throw new AdvanceFailed(err);
    }
  }
}

/** The advance that follows a node's settle failed: the caller settles the node alone (WorkflowExecutor.settle). */
class AdvanceFailed extends Error {
  constructor(cause: unknown) {
    super(`advancing the run failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
