import type { ModelDef } from '../types.js';

/** Every built-in model definition, in catalog order. Each family lives in its own file. */
export const builtinModels: ModelDef[] = [];
