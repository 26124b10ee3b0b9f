import type { HostedAssumptions } from '../../pricing/types.js';

/**
 * What an estimate of a hosted model takes for the quantities its cost rule reads from something the input
 * cannot tell before the run — a media file's length, the output's length — and the platform charge or
 * input-image fee the hosted estimates include without the rule stating them. Each value is read off the
 * hosted catalog's own `defaultEstimateMicrocredits` for the model's defaults (the rule's unit price times
 * the quantity gives that estimate), so our estimate for the defaults is the hosted one; inputs that do
 * state the quantity (a `duration`, a text, a resolution tier) are priced by the rule itself.
 *
 * Keyed by the hosted model id (`parentModelId`), or by sub-model id where sub-models differ.
 */
export const HOSTED_ASSUMPTIONS: Record<string, HostedAssumptions> = {
  // Every per-token LLM: the hosted base estimate is 100 tokens at its per-token rate.
  '*per_token': { minTokens: 100 },
  // Per-minute rules on media: a one-minute file.
  '*per_minute': { minutes: 1 },
  // Seed Audio bills the output's minutes; its estimate assumes two.
  'seed-audio-1-0': { minutes: 2 },
  // ElevenLabs speech priced per character: the estimate of an empty text is for 500 characters.
  'elevenlabs-v3-tts': { characters: 500 },
  'elevenlabs-multilingual-v2-tts': { characters: 500 },
  // Per-second rules on a media input's length with no stated fallback.
  'fal-demucs': { seconds: 5 },
  'audio-separate': { seconds: 5 },
  'audio-visual-separate': { seconds: 5 },
  'gemini-omni-flash-edit-video': { seconds: 5 },
  'video-faceswap': { seconds: 10 },
  'video-watermark-remover': { seconds: 10 },
  'kling-v3-pro-motion-control': { seconds: 10 },
  'kling-o3-pro-video-edit': { seconds: 10 },
  'infinitalk-video-lipsync': { seconds: 10 },
  'infinitalk-lipsync': { seconds: 10 },
  // VEED subtitles: the source's resolution tier is known from the file; the estimate takes SD (at the rule's 60-second minimum).
  'veed-subtitles': { tierParts: { resolutionTier: 'sd' } },
  // Image models whose hosted estimates carry a 1.3 platform charge that their rule does not state.
  'flux-2-max': { platformMultiplier: 1.3 },
  'nano-banana-2': { platformMultiplier: 1.3 },
  'nano-banana-pro': { platformMultiplier: 1.3 },
  'gpt-image-2': { platformMultiplier: 1.3 },
  'gpt-image-2.5-flare': { platformMultiplier: 1.3 },
  'gpt-image-2.5-sunburst': { platformMultiplier: 1.3 },
  'grok-imagine-image-text': { platformMultiplier: 1.3 },
  // xAI's per-input-image fee (0.002 credits an image, at least one for an edit).
  'grok-imagine-image-edit': { platformMultiplier: 1.3, inputImageFee: { credits: 0.002, fields: ['image_urls'], min: 1 } },
  // Grok Imagine Video: 0.01 credits for each input image.
  'xai-grok-image-to-video': { inputImageFee: { credits: 0.01, fields: ['image_url'], min: 1 } },
  'xai-grok-video-edit': { inputImageFee: { credits: 0.01, fields: ['reference_image_urls'], min: 1 } },
};

/** The assumptions for one sub-model: its own, else its model's, else its rule type's. */
export function assumptionsFor(modelId: string, subModelId: string, costType: string): HostedAssumptions | undefined {
  return HOSTED_ASSUMPTIONS[subModelId] ?? HOSTED_ASSUMPTIONS[modelId] ?? HOSTED_ASSUMPTIONS[`*${costType}`];
}
