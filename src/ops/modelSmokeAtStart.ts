import type { Logger } from 'pino';
import type { Catalog } from '../catalog/catalog.js';
import type { EngineRegistry } from '../engines/registry.js';
import { runModelSmoke, type SmokeOptions } from './modelSmoke.js';

/**
 * The service's start-up model check: the same smoke inputs as `atelier doctor --models`, run one after
 * another in the background once the service is ready. It never blocks start-up or a request; each
 * failure is logged as a warning naming the model, and a summary line follows. Stopping the service
 * aborts it. The engines run in the service's engine children (`execute`), never in the service process.
 */
export function startBackgroundModelSmoke(catalog: Catalog, engines: EngineRegistry, log: Logger, only: string[] | undefined, execute: NonNullable<SmokeOptions['execute']>, tmpRoot?: string): { stop(): Promise<void> } {
  const ctl = new AbortController();
  const started = Date.now();
  const done = (async () => {
    // Let the first requests through before loading models.
    await new Promise((r) => setTimeout(r, 2000).unref());
    if (ctl.signal.aborted) return;
    const results = await runModelSmoke(catalog, engines, {
      signal: ctl.signal,
      only,
      execute,
      tmpRoot,
      onResult: (r) => {
        // A check cut short by the stop says nothing about the model: not a failure to report.
        if (!r.ok && ctl.signal.aborted) return;
        if (!r.ok) log.warn({ model: r.nodeType, subModelId: r.subModelId, error: r.error }, `model check failed: ${r.nodeType}${r.subModelId ? `/${r.subModelId}` : ''} is listed available but its smoke input failed: ${r.error}`);
      },
    });
    if (ctl.signal.aborted) return;
    const failed = results.filter((r) => !r.ok);
    log.info({ checked: results.length, failed: failed.map((r) => r.subModelId ?? r.nodeType), seconds: Math.round((Date.now() - started) / 1000) },
      failed.length ? `model check: ${failed.length} of ${results.length} available local models failed their smoke input (run atelier doctor --models)` : `model check: all ${results.length} available local models ran their smoke input`);
  })().catch((err) => {
    if (!ctl.signal.aborted) log.warn({ err }, 'model check stopped');
  });
  return {
    async stop() {
      ctl.abort(new Error('service stopping'));
      await done;
    },
  };
}
