import type { Catalog } from '../catalog/catalog.js';
import type { ModeDef } from '../catalog/types.js';
import type { Queryable } from '../db/pool.js';
import { release, reserveMoreOrRefusal } from '../ledger/ledger.js';
import { PricingError } from '../pricing/price.js';
import { holdPriceMicrocredits } from '../catalog/routes.js';
import { cacheKey, mapFileRefs, nodeInput } from './inputs.js';
import { predecessorsOf, type PredecessorIndex, type RunPlan } from './runPlan.js';
import type { Graph, GraphNode } from './types.js';

/**
 * A workflow node becoming ready, in the order the executor's advance asks (workflows/executor.ts): whether
 * it is ready (the ready-set, pure), what it runs with (prepareNode: input, validation, cache key, price),
 * and its charge (chargeReadyNode: the hold moved to its price). One file, so that the path from a node's
 * settle to the next node's start reads in few (docs/design.md "Node path").
 */

// --- the ready-set (pure) -----------------------------------------------------------------------------

/** Node statuses of a workflow run (node_runs.status). */
export type NodeStatus = 'PENDING' | 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'SKIPPED' | 'CANCELED';

const TERMINAL = new Set<string>(['COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED']);
const DID_NOT_COMPLETE = new Set<string>(['FAILED', 'SKIPPED', 'CANCELED']);

/**
 * The workflow ready-set, pure: what a PENDING node should do given its predecessors' statuses. Nodes
 * without a status (request, response) are not predecessors that count. `skip`: an upstream node did not
 * complete; `ready`: every predecessor completed; `wait`: some are still under way; `none`: not pending.
 */
export function nextStep(graph: Graph, statuses: ReadonlyMap<string, string>, nodeId: string, index?: PredecessorIndex): 'skip' | 'ready' | 'wait' | 'none' {
  if (statuses.get(nodeId) !== 'PENDING') return 'none';
  const preds = (index?.get(nodeId) ?? predecessorsOf(graph, nodeId)).filter((p) => statuses.has(p)).map((p) => statuses.get(p)!);
  if (preds.some((s) => DID_NOT_COMPLETE.has(s))) return 'skip';
  return preds.every((s) => s === 'COMPLETED') ? 'ready' : 'wait';
}

/** True when every node has ended (the run can be finished). */
export function allEnded(statuses: Iterable<string>): boolean {
  for (const s of statuses) if (!TERMINAL.has(s)) return false;
  return true;
}

// --- the preparation -------------------------------------------------------------------------------------

/** A ready node with everything starting it needs: its input (validated), its cache key and its price. */
export interface PreparedNode {
  ok: true;
  node: GraphNode;
  mode: ModeDef;
  /** The input as stored (files as `{ file: id }` references), which the cache key and the node row take. */
  withRefs: Record<string, unknown>;
  /** The input validated with files as URLs, as the engine sees it. */
  input: Record<string, unknown>;
  key: string;
  /** Undefined when the input cannot be priced (the charge then fails the node: chargeReadyNode). */
  price: bigint | undefined;
}

/** A ready node whose input does not validate: it fails with this message. */
export interface UnpreparedNode {
  ok: false;
  withRefs: Record<string, unknown>;
  error: string;
}

/** How files in a node's input are seen: their URL (validation) and their content hashes (the cache key). */
export interface NodeFiles {
  url(fileId: string): string;
  /** The content hash of each file the input refers to; undefined to give up on a node with files. */
  shas(withRefs: Record<string, unknown>): Promise<Map<string, string> | undefined>;
}

/**
 * The one way to prepare a ready node (WorkflowExecutor's advance and the lease a settle makes alike):
 * resolve its input from the request values and its predecessors' outputs, validate it, take its cache
 * key (node type, the graph's sub-model, inputs, files by content hash) and price it. Undefined when
 * `files.shas` gives up.
 */
export async function prepareNode(catalog: Catalog, plan: RunPlan, node: GraphNode, outputs: Map<string, Record<string, unknown>>, files: NodeFiles): Promise<PreparedNode | UnpreparedNode | undefined> {
  const mode = catalog.resolveNode(node.type, node.subModelId, { requireSubModel: false }).mode;
  const withRefs = nodeInput(plan.graph, node, mode, plan.input, outputs);
  let input: Record<string, unknown>;
  try {
    // Validate with files as URLs (as the engine will see them); keep references for storage and the cache key.
    input = catalog.validateInput(mode, mapFileRefs(withRefs, (id) => files.url(id)), { path: `nodes.${node.id}.input` });
  } catch (err) {
    return { ok: false, withRefs, error: (err as Error).message };
  }
  const shas = await files.shas(withRefs);
  if (!shas) return undefined;
  // node_runs.sub_model_id is the graph's, null when it has none: the key is the one earlier runs stored.
  const key = cacheKey(node.type, node.subModelId ?? null, { ...input, ...withRefs }, (id) => shas.get(id) ?? id);
  return { ok: true, node, mode, withRefs, input, key, price: nodePriceIfAny(mode, input) };
}

/** True when the input refers to stored files. Pure. */
export function hasFiles(withRefs: Record<string, unknown>): boolean {
  let files = false;
  mapFileRefs(withRefs, () => (files = true));
  return files;
}

// --- the charge ------------------------------------------------------------------------------------------

/**
 * What a workflow node is charged: `price(model, the input it actually runs with)`, the very figure a
 * standalone run of that input costs. A run reserves its estimate at creation (values that arrive along
 * edges from other nodes are priced at their defaults then); when a node becomes ready with its resolved
 * input, its share of the hold is moved to that price before it runs — the difference reserved (refused
 * when the balance cannot cover it: the node fails INSUFFICIENT_CREDITS) or the surplus released. The
 * node's settle then captures exactly that hold — a routed node's, the price of the route that served it,
 * never more (workflows/queries.ts SETTLE_NODE). Pure parts first, then the one transactional step.
 */

/** The node's price on its validated, resolved input, as bigint microcredits. Pure. */
export function nodePrice(mode: ModeDef, validatedInput: Record<string, unknown>): bigint {
  // A routed mode holds its highest route's price (catalog/routes.ts).
  return BigInt(holdPriceMicrocredits(mode, validatedInput));
}

/** nodePrice, or undefined when the input cannot be priced (chargeReadyNode then fails the node). Pure. */
export function nodePriceIfAny(mode: ModeDef, validatedInput: Record<string, unknown>): bigint | undefined {
  try {
    return nodePrice(mode, validatedInput);
  } catch (err) {
    if (err instanceof PricingError) return undefined;
    throw err;
  }
}

/** How a node's hold moves to its price: reserve `more`, or release `surplus` (at most one is non-zero). Pure. */
export function holdAdjustment(held: bigint, price: bigint): { more: bigint; surplus: bigint } {
  return price > held ? { more: price - held, surplus: 0n } : { more: 0n, surplus: held - price };
}

export type NodeHold = { ok: true; price: bigint } | { ok: false; price: bigint; more: bigint; available: bigint; budget?: string };

/**
 * Moves the account's hold for a ready node to the node's price, inside the executor's transaction (the
 * run is locked). On success the caller records `price` as the node's hold in the statement that queues or
 * claims it (runs/queries/nodes.ts claimNodeSql), so the node row and the ledger agree when that
 * transaction commits; on refusal nothing moves and the caller fails the node with INSUFFICIENT_CREDITS
 * (its hold is then released like any failed node's).
 */
export async function holdNodePrice(tx: Queryable, c: { accountId: string; runId: string; nodeId: string; held: bigint; price: bigint }): Promise<NodeHold> {
  const { more, surplus } = holdAdjustment(c.held, c.price);
  if (more > 0n) {
    const refused = await reserveMoreOrRefusal(tx, c.accountId, more, c.runId, `node ${c.nodeId} priced at its input: ${c.price} (held ${c.held})`);
    // A spend limit refuses the node as the balance does (issue 29): it fails, with the limit named.
    if (refused?.code === 'BUDGET_EXCEEDED') return { ok: false, price: c.price, more, available: 0n, budget: refused.message };
    if (refused) return { ok: false, price: c.price, more, available: BigInt(refused.extra!.availableMicrocredits as number) };
  } else if (surplus > 0n) {
    await release(tx, c.accountId, surplus, c.runId, `node ${c.nodeId} priced at its input: ${c.price} (held ${c.held})`);
  }
  return { ok: true, price: c.price };
}

export function insufficientMessage(h: Extract<NodeHold, { ok: false }>): string {
  return `this node costs ${h.price} microcredits at its actual input, ${h.more} more than its share of the estimate, but only ${h.available} are available`;
}

/**
 * The executor's one call, when a node is ready with its validated input and is about to be queued or
 * claimed: price it and move the account's hold (the caller then writes the price on the node row).
 * `ok: false` carries the failure the node ends with (nothing was moved).
 */
export async function chargeReadyNode(tx: Queryable, c: { accountId: string; runId: string; nodeId: string; held: bigint; mode: ModeDef; input: Record<string, unknown> }): Promise<{ ok: true; price: bigint } | { ok: false; code: 'INSUFFICIENT_CREDITS' | 'PRICING_ERROR' | 'BUDGET_EXCEEDED'; message: string }> {
  let price: bigint;
  try {
    price = nodePrice(c.mode, c.input);
  } catch (err) {
    if (err instanceof PricingError) return { ok: false, code: 'PRICING_ERROR', message: `pricing failed: ${err.message}` };
    throw err;
  }
  const hold = await holdNodePrice(tx, { accountId: c.accountId, runId: c.runId, nodeId: c.nodeId, held: c.held, price });
  if (!hold.ok && hold.budget) return { ok: false, code: 'BUDGET_EXCEEDED', message: `node ${c.nodeId}: ${hold.budget}` };
  return hold.ok ? hold : { ok: false, code: 'INSUFFICIENT_CREDITS', message: insufficientMessage(hold) };
}
