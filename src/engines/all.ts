import type { Config } from '../config.js';
import type { Engine } from './types.js';
import { audioEngines } from './local/audio/index.js';
import { imageEngines } from './local/image/index.js';
import { lipsyncEngines } from './local/lipsync/index.js';
import { llmEngines } from './local/llm/index.js';
import { textEngines } from './local/text/index.js';
import { videoEngines } from './local/video/index.js';
import { remoteEnginesFromEnv } from './remote/index.js';

/** Every engine this build has: local engines always, remote adapters configured from the environment. */
export function allEngines(config: Config, env: NodeJS.ProcessEnv = process.env): Engine[] {
  return [
    ...imageEngines, ...videoEngines, ...lipsyncEngines, ...audioEngines, ...llmEngines, ...textEngines,
    ...remoteEnginesFromEnv(env, { allowPrivate: config.allowPrivateUrls }),
  ];
}
