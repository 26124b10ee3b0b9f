import type { EngineBinding } from '../../types.js';

/**
 * Hosted LLMs, all behind OpenRouter (provider type `openrouter`), run by the OpenAI-compatible engine
 * configured for OpenRouter (engines/remote/index.ts: OPENROUTER_API_KEY, OPENROUTER_BASE_URL). The model
 * slugs follow OpenRouter's `vendor/model-name` naming; an operator can point any of them at another slug
 * in atelier.models.json under "providerModels" (catalog/operatorModels.ts).
 */
const SLUGS: Record<string, string> = {
  gpt_6_astra: 'openai/gpt-6-astra',
  gpt_6_astra_pro: 'openai/gpt-6-astra-pro',
  claude_fable_5_1: 'anthropic/claude-fable-5.1',
  gemini_3_7_flash: 'google/gemini-3.7-flash',
  gemini_3_8_flash: 'google/gemini-3.8-flash',
  gpt_5_5: 'openai/gpt-5.5',
  gpt_5_5_pro: 'openai/gpt-5.5-pro',
  gpt_5_6_luna: 'openai/gpt-5.6-luna',
  gpt_5_6_luna_pro: 'openai/gpt-5.6-luna-pro',
  gpt_5_6_terra: 'openai/gpt-5.6-terra',
  gpt_5_6_terra_pro: 'openai/gpt-5.6-terra-pro',
  gpt_5_6_sol: 'openai/gpt-5.6-sol',
  gpt_5_6_sol_pro: 'openai/gpt-5.6-sol-pro',
  gemini_3_1_pro_preview: 'google/gemini-3.1-pro-preview',
  claude_sonnet_4_6: 'anthropic/claude-sonnet-4.6',
  claude_sonnet_5: 'anthropic/claude-sonnet-5',
  claude_opus_4_7: 'anthropic/claude-opus-4.7',
  claude_opus_4_8: 'anthropic/claude-opus-4.8',
  claude_opus_5: 'anthropic/claude-opus-5',
  claude_fable_5: 'anthropic/claude-fable-5',
  gemini_3_1_flash_lite: 'google/gemini-3.1-flash-lite',
  gemini_3_5_flash: 'google/gemini-3.5-flash',
  gemini_3_6_flash: 'google/gemini-3.6-flash',
  gemini_3_5_flash_lite: 'google/gemini-3.5-flash-lite',
  kimi_k3: 'moonshotai/kimi-k3',
  deepseek_v3_2: 'deepseek/deepseek-v3.2',
  grok_4_3: 'x-ai/grok-4.3',
};

export const bindings: Record<string, EngineBinding> = Object.fromEntries(
  Object.entries(SLUGS).map(([id, model]) => [id, { engine: 'openrouter', options: { operation: 'chat', model, hostedChat: true } }]),
);
