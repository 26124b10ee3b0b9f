import type { Availability, EngineOutputs } from '../engines/types.js';
import { EngineError } from '../engines/types.js';
import type { ModeDef, ModelRoute } from '../catalog/types.js';
import { routeKey } from '../catalog/routes.js';
import type { RouteCircuits, RouteGate } from '../catalog/routeCircuits.js';
import { priceMicrocredits } from '../pricing/price.js';

/**
 * Routing with fallback (issue 29, item 3), above the provider adapters: a routed mode's run tries its
 * routes (catalog/routes.ts) in the operator's order. A route is skipped when its engine is unavailable or
 * unconfigured here, or its circuit is open (catalog/routeCircuits.ts); a route that fails before the
 * provider accepted paid work — 5xx or 429 after the adapter's own retries, or a connection that never
 * reached it — counts against its circuit and the run moves on to the next. Any other failure (the input
 * refused, a time-out after the provider may have started, a cancel) ends the run there: trying another
 * provider then could pay twice for one run.
 */

/** What the run record shows (`route`): the route that served the run, and why each one before it did not. */
export interface RouteReport {
  served: string | null;
  /** The served route's price for the run's input: what the run is charged (never more than its hold). */
  chargeMicrocredits?: number;
  skipped: Array<{ name: string; reason: string }>;
}

/** Whether a failure happened before the provider accepted paid work, so another route may take the run. Pure. */
export function failedBeforeAccepted(err: unknown): boolean {
  if (!(err instanceof EngineError)) return false;
  const x = err as EngineError & { status?: number; maybeActed?: boolean };
  if (typeof x.status === 'number') return x.status === 429 || (x.status >= 500 && x.status !== 501);
  return x.maybeActed === false;
}

export interface RouteDeps {
  /** The engine's availability for this binding in this process (EngineRegistry.availability). */
  availability(route: ModelRoute): Availability;
  circuits?: RouteCircuits;
  /** Runs the route's binding; throws as the engine does. */
  call(route: ModelRoute): Promise<EngineOutputs>;
  signal: AbortSignal;
  /** Told the report as it stands when the run ends on a route (served or failed). */
  onReport?(report: RouteReport): void;
}

/** Runs the mode on the first route that serves it; throws the deciding failure, with the report told first. */
export async function runOnRoutes(mode: ModeDef, input: Record<string, unknown>, deps: RouteDeps): Promise<EngineOutputs> {
  const routes = mode.routes ?? [];
  const report: RouteReport = { served: null, skipped: [] };
  const tell = () => deps.onReport?.({ ...report, skipped: [...report.skipped] });
  let last: unknown;
  for (const route of routes) {
    if (deps.signal.aborted) break;
    const available = deps.availability(route);
    if (!available.available) {
      report.skipped.push({ name: route.name, reason: `unavailable: ${available.reason ?? 'not configured on this server'}` });
      continue;
    }
    const key = routeKey(mode, route);
    const gate: RouteGate = deps.circuits ? await deps.circuits.gate(key) : { state: 'closed', failures: 0 };
    if (gate.state === 'open') {
      report.skipped.push({ name: route.name, reason: `circuit open until ${gate.until.toISOString()} after repeated provider failures` });
      continue;
    }
    try {
      const outputs = await deps.call(route);
      await deps.circuits?.served(key, gate);
      report.served = route.name;
      report.chargeMicrocredits = priceMicrocredits(route.pricing, input);
      tell();
      return outputs;
    } catch (err) {
      last = err;
      if (deps.signal.aborted || !failedBeforeAccepted(err)) {
        report.skipped.push({ name: route.name, reason: `failed: ${(err as Error).message}`.slice(0, 500) });
        tell();
        throw err;
      }
      const openUntil = await deps.circuits?.failed(key);
      report.skipped.push({ name: route.name, reason: `failed before the provider took the work: ${(err as Error).message}${openUntil ? ` (circuit open until ${openUntil.toISOString()})` : ''}`.slice(0, 500) });
    }
  }
  tell();
  if (deps.signal.aborted) throw deps.signal.reason;
  const why = report.skipped.map((s) => `${s.name}: ${s.reason}`).join('; ');
  throw new EngineError(`no route could serve ${mode.subModelId} (${why})${last ? '' : '; nothing was sent to a provider'}`);
}
