import path from 'node:path';
import type { Queryable } from '../db/pool.js';
import { Catalog } from '../catalog/catalog.js';
import { builtinModels } from '../catalog/models/index.js';
import { loadOperatorModels } from '../catalog/operatorModels.js';
import { applyRoutes, loadRoutes } from '../catalog/routes.js';
import type { ModelRoute } from '../catalog/types.js';
import type { Config } from '../config.js';
import { mapFileRefs } from '../workflows/inputs.js';
import { nodePrice } from '../workflows/readyNode.js';
import { priceMicrocredits } from '../pricing/price.js';
import { CHARGED_NODES, type ChargedNodeRow } from '../runs/queries/nodes.js';
import { rowsOf } from '../db/typed.js';

export interface NodeChargeFinding {
  run_id: string;
  node_id: string;
  node_type: string;
  charged: number;
  priced: number | null;
  reason: string;
}

/**
 * Doctor's `node_charges` check: every charged workflow node was charged exactly the pricing function on
 * its stored input (the input it ran with), the figure a standalone run of that input costs — for a routed
 * node, the price of the route its record names as the one that served it, never more than its hold (the
 * highest route's price), as execution/routing.ts charges it. Reads only.
 */
export async function checkNodeCharges(db: Queryable, catalog: Catalog, limit = 1000): Promise<NodeChargeFinding[]> {
  const rows = await rowsOf<ChargedNodeRow>(db, CHARGED_NODES);
  const found: NodeChargeFinding[] = [];
  for (const r of rows) {
    if (found.length >= limit) break;
    const charged = Number(r.charged_microcredits);
    const base = { run_id: r.run_id, node_id: r.node_id, node_type: r.node_type, charged };
    let mode;
    try {
      mode = catalog.resolveNode(r.node_type, r.sub_model_id, { requireSubModel: false }).mode;
    } catch {
      found.push({ ...base, priced: null, reason: 'its model is not in this catalog, so its price cannot be checked' });
      continue;
    }
    let priced: number;
    try {
      // Files are stored as references; pricing never reads them, validation only wants a URL in their place.
      const input = catalog.validateInput(mode, mapFileRefs(r.input ?? {}, (id) => `https://files.invalid/v1/files/${id}`), { path: 'input' });
      priced = Number(nodePrice(mode, input));
      const served = r.route?.served;
      if (served) {
        const route = mode.routes?.find((x) => x.name === served);
        if (!route) {
          found.push({ ...base, priced: null, reason: `it was served by route "${served}", which this catalog's ${r.node_type} does not have, so its price cannot be checked` });
          continue;
        }
        priced = Math.min(priced, priceMicrocredits(route.pricing, input));
      }
    } catch (err) {
      found.push({ ...base, priced: null, reason: `its stored input cannot be priced: ${(err as Error).message}` });
      continue;
    }
    if (priced !== charged) found.push({ ...base, priced, reason: `charged ${charged} µc but its input prices at ${priced}` });
  }
  return found;
}

/** The catalog doctor prices with: the built-in models and the operator's file, no engines needed. */
export async function pricingCatalog(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<Catalog> {
  const builtin = builtinModels({ ...env, DATA_DIR: config.dataDir, MODELS_DIR: config.modelsDir });
  const operator = await loadOperatorModels(env.ATELIER_MODELS_FILE ?? path.join(config.dataDir, 'atelier.models.json'), {
    existingNodeTypes: builtin.map((m) => m.nodeType),
  }).catch(() => []);
  // Routed modes price at their highest route (catalog/routes.ts), as their runs and nodes are held.
  const file = env.ATELIER_MODELS_FILE ?? path.join(config.dataDir, 'atelier.models.json');
  const routes = await loadRoutes(file, [...builtin, ...operator]).catch(() => new Map<string, ModelRoute[]>());
  return new Catalog(applyRoutes([...builtin, ...operator], routes), () => ({ available: true }));
}
