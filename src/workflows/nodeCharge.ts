import type { Queryable } from '../db/pool.js';
import { release, reserveMoreOrRefusal } from '../ledger/ledger.js';
import type { ModeDef } from '../catalog/types.js';
import { priceMicrocredits, PricingError } from '../pricing/price.js';
import { AppError } from '../errors.js';
import type { Catalog } from '../catalog/catalog.js';
import { estimateNodes } from '../catalog/estimate.js';
import { nodeInput } from './inputs.js';
import type { Graph, GraphNode } from './types.js';

/**
 * What a workflow node is charged: `price(model, the input it actually runs with)`, the very figure a
 * standalone run of that input costs. A run reserves its estimate at creation (values that arrive along
 * edges from other nodes are priced at their defaults then); when a node becomes ready with its resolved
 * input, its share of the hold is moved to that price before it runs — the difference reserved (refused
 * when the balance cannot cover it: the node fails INSUFFICIENT_CREDITS) or the surplus released. The
 * node's settle then captures exactly that hold. Pure parts first, then the one transactional step.
 */

/** The node's price on its validated, resolved input, as bigint microcredits. Pure. */
export function nodePrice(mode: ModeDef, validatedInput: Record<string, unknown>): bigint {
  return BigInt(priceMicrocredits(mode.pricing, validatedInput));
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
 * claims it (queries.ts QUEUE_NODE, CLAIM_READY_NODE), so the node row and the ledger agree when that
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

/**
 * A workflow run's estimate at creation: each node priced with its own values plus what the Request node
 * feeds it (known now); values arriving from other nodes are priced at their defaults until the node is
 * ready. A node whose request-fed input does not validate is priced on its own values (it fails when it runs).
 */
export function estimateWorkflowNodes(catalog: Catalog, graph: Graph, nodes: GraphNode[], requestValues: Record<string, unknown>): Array<{ microcredits: number }> {
  const plain = estimateNodes(catalog, nodes.map((n) => ({ type: n.type, subModelId: n.subModelId, data: n.data })), 'nodes');
  return nodes.map((n, i) => {
    const mode = catalog.resolveNode(n.type, n.subModelId, { requireSubModel: false }).mode;
    const fed = nodeInput({ nodes: graph.nodes, edges: graph.edges.filter((e) => graph.nodes.find((x) => x.id === e.source)?.type === 'request') } as Graph, n, mode, requestValues, new Map());
    try {
      return estimateNodes(catalog, [{ type: n.type, subModelId: n.subModelId, data: fed }], `nodes[${i}]`)[0]!;
    } catch (err) {
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return plain[i]!;
      throw err;
    }
  });
}
