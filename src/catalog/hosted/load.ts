import { readFileSync } from 'node:fs';
import type { HostedCostType, HostedPricingRule } from '../../pricing/types.js';
import type { Category, EngineBinding, FineCategory, ModeDef, ModelDef, OutputSpec } from '../types.js';
import { assumptionsFor } from './assumptions.js';
import { hostedBindings } from './bindings/index.js';
import { hostedField, hostedOutput, wireSchema, type HostedField, type WireFacts } from './fields.js';
import { NO_ADAPTER_ENGINE_ID } from '../../engines/noAdapter.js';

/** The hosted catalog as scripts/hosted-catalog.mjs writes it to src/catalog/hosted/catalog.json. */
export interface HostedCatalogData {
  version: number;
  generatedAt: string;
  models: HostedModelData[];
}

export interface HostedModelData {
  id: string;
  nodeType: string;
  parentModelId: string;
  defaultSubModelId: string;
  nodeKind: string;
  category: string;
  categories?: string[];
  name: string;
  providerType: string;
  providerModel?: string;
  cost: Record<string, unknown> & { type: string };
  outputFields: HostedField[];
  subModels: Array<{
    subModelId: string;
    label: string;
    category: string;
    defaultEstimateMicrocredits: number;
    fields: HostedField[];
    schemaOnly: Record<string, WireFacts>;
    schemaRequired: string[];
  }>;
}

/**
 * Hosted models that branch `utils` defines with local engines (crop, extract audio, merge audio and video,
 * merge videos, OCR); the hosted loader leaves them to it.
 */
export const HOSTED_DEFINED_ELSEWHERE = new Set(['crop_image', 'extract_audio', 'merge_audio_video', 'merge_videos', 'document_ocr']);

const PROVIDER_LABELS: Record<string, string> = {
  openrouter: 'OpenRouter', fal: 'fal.ai', openai: 'OpenAI', replicate: 'Replicate', elevenlabs: 'ElevenLabs', google: 'Google',
  deepgram: 'Deepgram', mistral: 'Mistral AI', xai: 'xAI', wavespeed: 'WaveSpeedAI', hedra: 'Hedra', internal: 'Atelier',
  'social-media-video-downloader': 'Social media video downloader', 'video-clips-generator': 'Video clips generator',
};

const STYLE: Record<string, { icon: string; accent: string }> = {
  image: { icon: 'image', accent: '#7c3aed' },
  video: { icon: 'film', accent: '#db2777' },
  audio: { icon: 'audio-lines', accent: '#0891b2' },
  llm: { icon: 'message-square', accent: '#ea580c' },
  utility: { icon: 'wrench', accent: '#64748b' },
};

const COST_TYPES: HostedCostType[] = ['per_token', 'tiered', 'fixed', 'per_second', 'per_minute', 'per_character', 'per_megapixel', 'per_image'];

/** Output keys: the model's own (`outputFieldOptions`), else the hosted convention for its kind. */
function outputsOf(m: HostedModelData, subCategory: string): OutputSpec[] {
  if (m.outputFields.length) return m.outputFields.map(hostedOutput);
  switch (m.nodeKind) {
    case 'llm':
      return [{ name: 'output', dataType: 'text', wireType: 'string' }];
    case 'image':
      // Generative image models answer a list of image URLs plus per-image metadata (hosted-compat.md).
      return [
        { name: 'result', dataType: m.categories?.includes('3d') ? 'file' : 'image', wireType: 'string[]' },
        { name: 'resultMetadata', dataType: 'any' },
      ];
    case 'video':
      return [{ name: 'result', dataType: 'video', wireType: 'string[]' }];
    default:
      return [{ name: 'result', dataType: subCategory === 'transcription' ? 'text' : 'audio', wireType: subCategory === 'transcription' ? 'string' : 'string[]' }];
  }
}

function bindingOf(m: HostedModelData, subModelId: string): EngineBinding {
  return hostedBindings[subModelId] ?? { engine: NO_ADAPTER_ENGINE_ID, options: { provider: m.providerType } };
}

/** Our own one-line description, from facts only. */
function describe(m: HostedModelData): string {
  const what = m.subModels.length > 1 ? m.subModels.map((s) => s.label.toLowerCase()).join(', ') : m.category.replace(/-/g, ' ');
  return `${m.name}: ${what}, with the hosted service's inputs and prices; runs on ${PROVIDER_LABELS[m.providerType] ?? m.providerType}.`;
}

/** One hosted model as our ModelDef (pure). */
export function hostedModel(m: HostedModelData): ModelDef {
  if (!COST_TYPES.includes(m.cost.type as HostedCostType)) throw new Error(`hosted catalog: ${m.id} has an unknown cost type ${m.cost.type}`);
  const modes: ModeDef[] = m.subModels.map((s) => {
    const pricing: HostedPricingRule = { kind: 'hosted', unit: m.cost.type as HostedCostType, cost: m.cost };
    const assume = assumptionsFor(m.id, s.subModelId, m.cost.type);
    if (assume) pricing.assume = assume;
    const outputs = outputsOf(m, s.category);
    return {
      subModelId: s.subModelId,
      label: s.label,
      category: s.category as FineCategory,
      fields: s.fields.map(hostedField),
      outputs,
      pricing,
      engine: bindingOf(m, s.subModelId),
      defaultEstimateMicrocredits: s.defaultEstimateMicrocredits,
      ...(Object.keys(s.schemaOnly).length ? { extraInputs: Object.fromEntries(Object.entries(s.schemaOnly).map(([n, w]) => [n, wireSchema(n, w)])) } : {}),
      timeoutSeconds: m.nodeKind === 'video' ? 1800 : m.nodeKind === 'llm' ? 600 : 900,
    };
  });
  return {
    nodeType: m.nodeType,
    name: m.name,
    description: describe(m),
    category: m.nodeKind as Category,
    ...(STYLE[m.nodeKind] ?? STYLE.utility!),
    provider: m.providerType,
    modes,
    defaultSubModelId: m.defaultSubModelId,
    ...(m.parentModelId !== m.nodeType ? { parentModelId: m.parentModelId } : {}),
    providerType: m.providerType,
    providerLabel: PROVIDER_LABELS[m.providerType] ?? m.providerType,
    cost: m.cost,
  };
}

/** Every hosted model as our ModelDef, but those another part of Atelier defines (HOSTED_DEFINED_ELSEWHERE). Pure. */
export function hostedModels(data: HostedCatalogData): ModelDef[] {
  return data.models.filter((m) => !HOSTED_DEFINED_ELSEWHERE.has(m.nodeType)).map(hostedModel);
}

let cached: HostedCatalogData | undefined;

/** The committed hosted catalog data (read once). */
export function hostedCatalogData(): HostedCatalogData {
  cached ??= JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8')) as HostedCatalogData;
  return cached;
}
