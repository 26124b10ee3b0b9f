import type { Config } from '../config.js';
import { EngineRegistry } from '../engines/registry.js';
import { allEngines } from '../engines/all.js';
import { importTestEngines } from '../engines/testEnginesModule.js';
import type { Engine } from '../engines/types.js';
import type { ModelDef } from './types.js';
import { Catalog } from './catalog.js';
import path from 'node:path';
import { builtinModels } from './models/index.js';
import { applyProviderModelMap, loadOperatorModels, loadProviderModelMap } from './operatorModels.js';
import { REMOTE_ENGINE_IDS } from '../engines/remote/index.js';
import { withOutputKinds } from './outputKinds.js';
import { applyRoutes, loadRoutes } from './routes.js';

/** Builds this process's engine registry (availability checked once) and the catalog over it. */
export async function loadCatalog(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<{ catalog: Catalog; engines: EngineRegistry }> {
  // Test-only engines and their models (ATELIER_TEST_ENGINES_MODULE, set by the test helpers only).
  const test = config.testEnginesModule ? await importTestEngines<{ engines: Engine[]; models: ModelDef[] }>(config.testEnginesModule) : { engines: [], models: [] };
  const engines = new EngineRegistry([...allEngines(config, env), ...test.engines]);
  await engines.init();
  const modelsFile = env.ATELIER_MODELS_FILE ?? path.join(config.dataDir, 'atelier.models.json');
  // The operator may point built-in remote models at the models their server serves ("providerModels").
  const defined = builtinModels({ ...env, DATA_DIR: config.dataDir, MODELS_DIR: config.modelsDir });
  const builtin = [...applyProviderModelMap(defined, await loadProviderModelMap(modelsFile, defined)), ...test.models];
  // Operator-defined models (atelier.models.json) bind remote adapters without code; a bad file stops start-up with its problems listed.
  const operator = await loadOperatorModels(modelsFile, {
    existingNodeTypes: builtin.map((m) => m.nodeType),
    engineIds: REMOTE_ENGINE_IDS,
    required: Boolean(env.ATELIER_MODELS_FILE),
  });
  // Routes with fallback ("routes"): any engine of this build may serve a route, local or remote.
  const routed = applyRoutes([...builtin, ...operator], await loadRoutes(modelsFile, [...builtin, ...operator], engines.ids()));
  const catalog = new Catalog(withOutputKinds(routed), (id, options) => engines.availability(id, options));
  return { catalog, engines };
}
