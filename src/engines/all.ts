import type { Config } from '../config.js';
import type { Engine } from './types.js';

/** Every engine this build has: local engines always, remote adapters configured from the environment. */
export function allEngines(_config: Config, _env: NodeJS.ProcessEnv = process.env): Engine[] {
  return [];
}
