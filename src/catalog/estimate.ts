import type { Static } from '@sinclair/typebox';
import type { EstimateNode as EstimateNodeSchema } from '../contract/models.js';
import { AppError } from '../errors.js';
import { priceMicrocredits, PricingError } from '../pricing/price.js';
import { pricedAtDefault } from '../pricing/fields.js';
import type { Catalog } from './catalog.js';

export const MAX_NODES = 100;
/** Workflow structure nodes: they run no model and cost nothing. */
export const BUILTIN_NODE_TYPES = new Set(['request', 'response']);

/** A node-shaped payload to price: the contract's EstimateNode (src/contract/models.ts). */
export type EstimateNode = Static<typeof EstimateNodeSchema>;

/**
 * Prices node-shaped payloads with the one pricing function, in input order. Node data is validated
 * against the model's schema (types, bounds, unknown keys) but required inputs may be missing, since in a
 * workflow they arrive along edges; defaults fill what is absent, and `pricedAtDefault` names the pricing
 * inputs so filled (a run charges each node the price of the input it actually receives). Errors name the
 * node index and field.
 */
export function estimateNodes(catalog: Catalog, nodes: EstimateNode[], pathPrefix = 'body.nodes'): Array<{ microcredits: number; pricedAtDefault: string[] }> {
  if (nodes.length > MAX_NODES) {
    throw new AppError('TOO_MANY_NODES', `At most ${MAX_NODES} nodes may be estimated at once; got ${nodes.length}`);
  }
  return nodes.map((node, i) => {
    const path = `${pathPrefix}[${i}]`;
    if (BUILTIN_NODE_TYPES.has(node.type)) return { microcredits: 0, pricedAtDefault: [] };
    const r = catalog.resolveNode(node.type, node.subModelId, { requireSubModel: false, path });
    if (r.model.deprecated) {
      throw new AppError('VALIDATION_ERROR', `${path}.type: ${r.model.nodeType} is retired; use ${r.model.deprecated.replacement}`, {
        details: [{ path: `${path}.type`, message: `is deprecated; use ${r.model.deprecated.replacement}` }],
      });
    }
    const input = catalog.validateInput(r.mode, node.data ?? {}, { path: `${path}.data`, partial: true });
    try {
      return { microcredits: priceMicrocredits(r.mode.pricing, input), pricedAtDefault: pricedAtDefault(r.mode.pricing, node.data, r.mode.fields.map((f) => f.name)) };
    } catch (err) {
      if (err instanceof PricingError) throw new AppError('PRICING_ERROR', `Pricing failed for ${path}: ${err.message}`);
      throw err;
    }
  });
}

/**
 * The sum of estimates as an exact JSON integer: summed in bigint, refused past Number.MAX_SAFE_INTEGER
 * (no balance can be that large, so nothing that costs more could run).
 */
export function totalMicrocredits(estimates: Array<{ microcredits: number }>): number {
  const total = estimates.reduce((s, e) => s + BigInt(e.microcredits), 0n);
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AppError('VALIDATION_ERROR', `these nodes cost ${total} microcredits together, more than any balance may hold (${Number.MAX_SAFE_INTEGER})`, {
      details: [{ path: 'body.nodes', message: 'total cost exceeds the largest balance' }],
    });
  }
  return Number(total);
}
