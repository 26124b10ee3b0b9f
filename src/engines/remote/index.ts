import type { Engine } from '../types.js';
import { createComfyUIEngine } from './comfyui.js';
import { createDeepgramEngine } from './deepgram.js';
import { createElevenLabsEngine } from './elevenlabs.js';
import { createFalEngine } from './fal.js';
import { createGoogleEngine } from './google.js';
import { createHedraEngine } from './hedra.js';
import { createMistralEngine } from './mistral.js';
import { createOpenAIEngine, createOpenRouterEngine } from './openai.js';
import { createReplicateEngine } from './replicate.js';
import { createWaveSpeedEngine } from './wavespeed.js';
import { createXAIEngine } from './xai.js';
import type { RemoteCommonSettings } from './settings.js';

export { createComfyUIEngine, type ComfyUISettings } from './comfyui.js';
export { createDeepgramEngine, type DeepgramSettings } from './deepgram.js';
export { createElevenLabsEngine, type ElevenLabsSettings } from './elevenlabs.js';
export { createFalEngine, type FalSettings } from './fal.js';
export { createGoogleEngine, type GoogleSettings } from './google.js';
export { createHedraEngine, type HedraSettings } from './hedra.js';
export { createMistralEngine, type MistralSettings } from './mistral.js';
export { createOpenAIEngine, createOpenRouterEngine, type OpenAISettings } from './openai.js';
export { createReplicateEngine, type ReplicateSettings } from './replicate.js';
export { createWaveSpeedEngine, type WaveSpeedSettings } from './wavespeed.js';
export { createXAIEngine, type XAISettings } from './xai.js';
export type { RemoteCommonSettings } from './settings.js';
export type { RetryPolicy } from './http.js';

/** The engine ids catalog bindings use for remote providers. */
export const REMOTE_ENGINE_IDS = ['openai', 'fal', 'replicate', 'comfyui', 'openrouter', 'elevenlabs', 'deepgram', 'xai', 'google', 'wavespeed', 'hedra', 'mistral'] as const;

const val = (env: NodeJS.ProcessEnv, name: string) => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/**
 * Every remote adapter, configured from the environment. An adapter whose variables are missing is still
 * returned, unavailable with the reason ("set FAL_KEY …"), so the catalog can list its models as such.
 *
 *   OPENAI_API_KEY, OPENAI_BASE_URL   OpenAI, or any OpenAI-compatible server (Ollama, vLLM, llama.cpp)
 *   OPENROUTER_API_KEY, OPENROUTER_BASE_URL   OpenRouter (the hosted catalog's LLMs), default https://openrouter.ai/api/v1
 *   FAL_KEY, FAL_BASE_URL, FAL_QUEUE_URL, FAL_STORAGE_URL
 *   REPLICATE_API_TOKEN, REPLICATE_BASE_URL
 *   COMFYUI_URL
 *   ELEVENLABS_API_KEY, ELEVENLABS_BASE_URL
 *   DEEPGRAM_API_KEY, DEEPGRAM_BASE_URL
 *   XAI_API_KEY, XAI_BASE_URL
 *   GEMINI_API_KEY, GEMINI_BASE_URL   the Gemini API (Google)
 *   WAVESPEED_API_KEY, WAVESPEED_BASE_URL
 *   HEDRA_API_KEY, HEDRA_BASE_URL
 *   MISTRAL_API_KEY, MISTRAL_BASE_URL
 *   ATELIER_ALLOW_PRIVATE_URLS=1      output files may come from internal addresses (unless `common` says otherwise)
 *
 * `common` lets the caller (and tests) set limits, retry policy and polling for all of them.
 */
export function remoteEnginesFromEnv(env: NodeJS.ProcessEnv = process.env, common: RemoteCommonSettings = {}): Engine[] {
  const shared: RemoteCommonSettings = { allowPrivate: env.ATELIER_ALLOW_PRIVATE_URLS === '1', ...common };
  return [
    createOpenAIEngine({ ...shared, apiKey: val(env, 'OPENAI_API_KEY'), baseUrl: val(env, 'OPENAI_BASE_URL') }),
    createFalEngine({ ...shared, apiKey: val(env, 'FAL_KEY'), baseUrl: val(env, 'FAL_BASE_URL'), queueUrl: val(env, 'FAL_QUEUE_URL'), storageUrl: val(env, 'FAL_STORAGE_URL') }),
    createReplicateEngine({ ...shared, apiToken: val(env, 'REPLICATE_API_TOKEN'), baseUrl: val(env, 'REPLICATE_BASE_URL') }),
    createComfyUIEngine({ ...shared, baseUrl: val(env, 'COMFYUI_URL') }),
    createOpenRouterEngine({ ...shared, apiKey: val(env, 'OPENROUTER_API_KEY'), baseUrl: val(env, 'OPENROUTER_BASE_URL') }),
    createElevenLabsEngine({ ...shared, apiKey: val(env, 'ELEVENLABS_API_KEY'), baseUrl: val(env, 'ELEVENLABS_BASE_URL') }),
    createDeepgramEngine({ ...shared, apiKey: val(env, 'DEEPGRAM_API_KEY'), baseUrl: val(env, 'DEEPGRAM_BASE_URL') }),
    createXAIEngine({ ...shared, apiKey: val(env, 'XAI_API_KEY'), baseUrl: val(env, 'XAI_BASE_URL') }),
    createGoogleEngine({ ...shared, apiKey: val(env, 'GEMINI_API_KEY'), baseUrl: val(env, 'GEMINI_BASE_URL') }),
    createWaveSpeedEngine({ ...shared, apiKey: val(env, 'WAVESPEED_API_KEY'), baseUrl: val(env, 'WAVESPEED_BASE_URL') }),
    createHedraEngine({ ...shared, apiKey: val(env, 'HEDRA_API_KEY'), baseUrl: val(env, 'HEDRA_BASE_URL') }),
    createMistralEngine({ ...shared, apiKey: val(env, 'MISTRAL_API_KEY'), baseUrl: val(env, 'MISTRAL_BASE_URL') }),
  ];
}
