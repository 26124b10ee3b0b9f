import type { ModelDef } from '../types.js';
import { models as image } from './localImage.js';
import { models as lipsync } from './localLipsync.js';
import { models as video } from './localVideo.js';
import { models as audio } from './localAudio.js';
import { models as text } from './localText.js';
import { llmModels } from './localLlm.js';
import { models as remote } from './remote.js';
import { hostedCatalogData, hostedModels } from '../hosted/load.js';
import { models as utilities } from './utilities.js';

/**
 * Every built-in model definition, in catalog order; each family lives in its own file. A function,
 * because llama_cpp's sub-models are the GGUF files found in MODELS_DIR when the catalog is built.
 */
export function builtinModels(env: NodeJS.ProcessEnv = process.env): ModelDef[] {
  // The hosted service's catalog (catalog/hosted/), under its ids and with its inputs, beside our own
  // models; its five utilities are ours (utilities.ts), run by local engines.
  return [...image, ...video, ...lipsync, ...audio, ...llmModels(env), ...text, ...remote, ...utilities, ...hostedModels(hostedCatalogData())];
}
