import type { Engine } from '../../types.js';
import { llamaCppEngine } from './llamaCpp.js';

/** Local LLM engines: llama.cpp over operator-supplied GGUF files. */
export const llmEngines: Engine[] = [llamaCppEngine];
