import type { Static } from '@sinclair/typebox';
import { MAX_NODES, type EstimateNode as EstimateNodeSchema } from '../contract/models.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { PricingError } from '../pricing/price.js';
import { pricedAtDefault } from '../pricing/fields.js';
import type { Catalog } from './catalog.js';
import { holdPriceMicrocredits } from './routes.js';

/** Workflow structure nodes: they run no model and cost nothing. */
export const BUILTIN_NODE_TYPES = new Set(['request', 'response']);

/** A node-shaped payload to price: the contract's EstimateNode (src/contract/models.ts). */
export type EstimateNode = Static<typeof EstimateNodeSchema>;

export interface NodeEstimate {
  microcredits: number;
  pricedAtDefault: string[];
  /** Lenient estimates only: the inputs left out of the price, each with why (absent when none). */
  ignored?: ErrorDetail[];
}

/**
 * Prices node-shaped payloads with the one pricing function, in input order. Required inputs may be
 * missing, since in a workflow they arrive along edges; defaults fill what is absent, and
 * `pricedAtDefault` names the pricing inputs so filled (a run charges each node the price of the input it
 * actually receives). A node without subModelId is priced in the model's default mode; the mode may also
 * be named as `data.subModelId`.
 *
 * Strict (workflow runs' charges, the default): node data is validated against the model's schema (types,
 * bounds, unknown keys) and errors name the node index and field. Lenient (the public estimate endpoints,
 * hosted-compat: "invalid input does not error; it returns the base estimate"): unknown or invalid fields
 * and an unknown subModelId are left out, priced at their defaults, and named in `ignored`. An unknown or
 * retired model is refused either way.
 */
export function estimateNodes(catalog: Catalog, nodes: EstimateNode[], pathPrefix = 'body.nodes', opts: { lenient?: boolean } = {}): NodeEstimate[] {
  if (nodes.length > MAX_NODES) {
    throw new AppError('TOO_MANY_NODES', `At most ${MAX_NODES} nodes may be estimated at once; got ${nodes.length}`);
  }
  return nodes.map((node, i) => {
    const path = `${pathPrefix}[${i}]`;
    if (BUILTIN_NODE_TYPES.has(node.type)) return { microcredits: 0, pricedAtDefault: [] };
    const ignored: ErrorDetail[] = [];
    let call: ReturnType<Catalog['resolveCall']>;
    try {
      call = catalog.resolveCall(node.type, node.subModelId, node.data ?? {}, { inputPath: `${path}.data`, path });
    } catch (err) {
      if (!opts.lenient || !(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      // A mode the model lacks: the default mode's price, and the mode named as ignored.
      ignored.push(...(err.details ?? []).map((d) => ({ path: d.path, message: `${d.message}; the default mode was priced` })));
      const data = node.data && typeof node.data === 'object' ? { ...node.data } : {};
      delete (data as Record<string, unknown>).subModelId;
      call = { resolved: catalog.resolveNode(node.type, undefined, { path }), input: data };
    }
    const r = call.resolved;
    if (r.model.deprecated) {
      throw new AppError('VALIDATION_ERROR', `${path}.type: ${r.model.nodeType} is retired; use ${r.model.deprecated.replacement}`, {
        details: [{ path: `${path}.type`, message: `is deprecated; use ${r.model.deprecated.replacement}` }],
      });
    }
    let input: Record<string, unknown>;
    let given: unknown = call.input;
    if (opts.lenient) {
      const read = catalog.validateLenient(r.mode, call.input, { path: `${path}.data` });
      input = read.input;
      ignored.push(...read.ignored);
      // Ignored inputs were priced at their defaults too, so they count as not given.
      const dropped = new Set(read.ignored.map((x) => x.path));
      given = Object.fromEntries(Object.entries(given && typeof given === 'object' ? given : {}).filter(([k]) => !dropped.has(`${path}.data.${k}`)));
    } else {
      input = catalog.validateInput(r.mode, call.input, { path: `${path}.data`, partial: true });
    }
    try {
      const priced = { microcredits: holdPriceMicrocredits(r.mode, input), pricedAtDefault: pricedAtDefault(r.mode.pricing, given, r.mode.fields.map((f) => f.name)) };
      return ignored.length ? { ...priced, ignored } : priced;
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
