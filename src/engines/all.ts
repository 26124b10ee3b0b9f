import type { Config } from '../config.js';
import type { Engine } from './types.js';
import { audioEngines } from './local/audio/index.js';
import { imageEngines } from './local/image/index.js';
import { lipsyncEngines } from './local/lipsync/index.js';
import path from 'node:path';
import { createLlamaCppEngine } from './local/llm/llamaCpp.js';
import { textEngines } from './local/text/index.js';
import { videoEngines } from './local/video/index.js';
import { remoteEnginesFromEnv } from './remote/index.js';
import { createNoAdapterEngine } from './noAdapter.js';

/** Every engine this build has: local engines always, remote adapters configured from the environment. */
export function allEngines(config: Config, env: NodeJS.ProcessEnv = process.env): Engine[] {
  return [
    ...imageEngines, ...videoEngines, ...lipsyncEngines, ...audioEngines, ...textEngines,
    // The same folder the catalog lists llama.cpp sub-models from.
    createLlamaCppEngine(() => path.join(config.modelsDir, 'llm')),
    ...remoteEnginesFromEnv(env, { allowPrivate: config.allowPrivateUrls }),
    createNoAdapterEngine(),
  ];
}
