import type { Config } from '../config.js';
import { EngineRegistry } from '../engines/registry.js';
import { allEngines } from '../engines/all.js';
import { Catalog } from './catalog.js';
import { builtinModels } from './models/index.js';

/** Builds this process's engine registry (availability checked once) and the catalog over it. */
export async function loadCatalog(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<{ catalog: Catalog; engines: EngineRegistry }> {
  const engines = new EngineRegistry(allEngines(config, env));
  await engines.init();
  const catalog = new Catalog(builtinModels({ ...env, DATA_DIR: config.dataDir, MODELS_DIR: config.modelsDir }), (id) => engines.availability(id));
  return { catalog, engines };
}
