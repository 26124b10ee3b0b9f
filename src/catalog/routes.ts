import fs from 'node:fs/promises';
import path from 'node:path';
import type { Availability } from '../engines/types.js';
import { priceMicrocredits } from '../pricing/price.js';
import { OperatorModelsError, parseEngine, parsePricing } from './operatorModels.js';
import type { ModeDef, ModelDef, ModelRoute } from './types.js';

/**
 * Routing with fallback (issue 29, item 3): `routes` in atelier.models.json gives a model (or one of its
 * modes) several ways of being served — a local engine, fal, Replicate, an OpenAI-compatible server,
 * ComfyUI — in the operator's order, each with its own binding (provider model id) and its own price:
 *
 *   "routes": { "<nodeType or subModelId>": [ { "name": "primary", "engine": "fal", "options": { … }, "pricing"?: { … } }, … ] }
 *
 * A route without `pricing` costs what the mode's own rule says. A run holds the highest price of its
 * mode's routes (holdPriceMicrocredits) and is charged the price of the route that served it
 * (execution/routing.ts), so the charge never passes the hold. A mode's own key wins over its nodeType's.
 * The listed routes replace the mode's built-in binding; to keep it, list it as one of the routes.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const MAX_ROUTES = 8;

/**
 * Reads the file's "routes" (none when the file is missing); the models are the whole catalog they may
 * name. Without `engineIds` any engine name is taken (pricing only: doctor's catalog has no engines).
 */
export async function loadRoutes(file: string, models: readonly ModelDef[], engineIds?: readonly string[]): Promise<Map<string, ModelRoute[]>> {
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return new Map(); // a missing file means no routes; a malformed one was already reported by loadOperatorModels
  }
  return parseRoutes(json, path.basename(file), models, engineIds);
}

/** Validates "routes" against the models it names; every problem is reported at once. Pure, for tests. */
export function parseRoutes(json: unknown, source: string, models: readonly ModelDef[], engineIds?: readonly string[]): Map<string, ModelRoute[]> {
  const out = new Map<string, ModelRoute[]>();
  if (!isObj(json) || json.routes === undefined) return out;
  if (!isObj(json.routes)) throw new OperatorModelsError(source, ['routes: must be an object of { "<nodeType or subModelId>": [ { "name", "engine", "options", "pricing"? }, … ] }']);
  const modes = new Map<string, ModeDef[]>();
  for (const m of models) {
    modes.set(m.nodeType, m.modes);
    for (const mode of m.modes) if (!modes.has(mode.subModelId)) modes.set(mode.subModelId, [mode]);
  }
  const problems: string[] = [];
  const engines = engineIds ?? Object.values(json.routes).flatMap((l) => (Array.isArray(l) ? l.map((r) => (isObj(r) && typeof r.engine === 'string' ? r.engine : '')) : []));
  for (const [key, list] of Object.entries(json.routes)) {
    if (key === 'comment') continue;
    const at = `routes.${key}`;
    const targets = modes.get(key);
    if (!targets) {
      problems.push(`${at}: no model or sub-model "${key}" exists`);
      continue;
    }
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ROUTES) {
      problems.push(`${at}: must be a list of 1 to ${MAX_ROUTES} routes, in the order they are tried`);
      continue;
    }
    const before = problems.length;
    const names = new Set<string>();
    const parsed: Array<{ name: string; engine: ModelRoute['engine']; pricing?: unknown }> = [];
    list.forEach((raw, i) => {
      const here = `${at}[${i}]`;
      if (!isObj(raw)) return void problems.push(`${here}: must be { "name", "engine", "options", "pricing"? }`);
      for (const k of Object.keys(raw)) if (!['name', 'engine', 'options', 'pricing', 'comment'].includes(k)) problems.push(`${here}: unknown key "${k}" (allowed: name, engine, options, pricing)`);
      if (typeof raw.name !== 'string' || !KEBAB.test(raw.name)) problems.push(`${here}.name: must be kebab-case (e.g. "fal-primary")`);
      else if (names.has(raw.name)) problems.push(`${here}.name: "${raw.name}" appears twice in this list`);
      else names.add(raw.name);
      const engine = parseEngine({ engine: raw.engine, options: raw.options ?? {} }, here, problems, engines);
      if (engine && typeof raw.name === 'string') parsed.push({ name: raw.name, engine, pricing: raw.pricing });
    });
    if (problems.length > before) continue;
    for (const mode of targets) {
      const routes: ModelRoute[] = [];
      parsed.forEach((r, i) => {
        const pricing = r.pricing === undefined ? mode.pricing : parsePricing(r.pricing, `${at}[${i}].pricing`, problems, mode.fields);
        if (pricing) routes.push({ name: r.name, engine: r.engine, pricing });
      });
      // A mode's own entry wins over its model's, whichever comes first in the file.
      if (routes.length === parsed.length && (key === mode.subModelId || !out.has(mode.subModelId))) out.set(mode.subModelId, routes);
    }
  }
  if (problems.length) throw new OperatorModelsError(source, problems);
  return out;
}

/** The models with their routed modes bound to their routes (the first route is also the mode's binding). */
export function applyRoutes(models: ModelDef[], routes: Map<string, ModelRoute[]>): ModelDef[] {
  if (routes.size === 0) return models;
  return models.map((m) => {
    if (!m.modes.some((mode) => routes.has(mode.subModelId))) return m;
    return {
      ...m,
      modes: m.modes.map((mode) => {
        const r = routes.get(mode.subModelId);
        return r ? { ...mode, engine: r[0]!.engine, routes: r } : mode;
      }),
    };
  });
}

/** What a run of the mode holds: the highest of its routes' prices for the input (its own price when it has no routes). */
export function holdPriceMicrocredits(mode: ModeDef, input: Record<string, unknown>): number {
  if (!mode.routes?.length) return priceMicrocredits(mode.pricing, input);
  return Math.max(...mode.routes.map((r) => priceMicrocredits(r.pricing, input)));
}

/** The circuit a route's failures count toward, shared by every worker (catalog/routeCircuits.ts). */
export function routeKey(mode: ModeDef, route: ModelRoute): string {
  return `${mode.subModelId}/${route.name}`;
}

/** A routed mode is available when any route is; otherwise it says why each is not. */
export function routedAvailability(mode: ModeDef, check: (route: ModelRoute) => Availability): Availability {
  const each = (mode.routes ?? []).map((r) => ({ r, a: check(r) }));
  if (each.some((x) => x.a.available)) return { available: true };
  return { available: false, reason: `no route can serve it (${each.map((x) => `${x.r.name}: ${x.a.reason ?? 'unavailable'}`).join('; ')})` };
}
