import type { PricingRule } from '../pricing/types.js';

export type Category = 'image' | 'video' | 'audio' | 'llm' | 'utility';

/** Fine categories used by search and sub-models. */
export type FineCategory =
  | 'text-to-image' | 'image-to-image' | 'image-to-text' | 'image-understanding' | 'image-utility'
  | 'text-to-video' | 'image-to-video' | 'video-to-video' | 'video-utility' | 'lipsync'
  | 'text-to-speech' | 'voice-changing' | 'transcription' | 'music-generation' | 'sound-effects' | 'audio-utility' | 'audio-translation'
  | 'text-generation' | 'multimodal-llm'
  | 'text-utility'
  // The hosted catalog's own sub-model categories (shared/spec/hosted-catalog.json), kept as it names them.
  | 'llm' | 'utility' | 'reference-to-video' | 'bg-remover' | 'bg-changer' | 'faceswap' | 'watermark-remover' | 'upscaler'
  | 'audio-separation' | 'audio-isolation' | 'voice-cloning' | 'stem-splitting' | 'podcast-summarization'
  | 'social-media-video-downloader' | 'video-clips';

export type Role = 'GENERATE' | 'EDIT' | 'TRANSFORM' | 'TRANSCRIBE' | 'UNDERSTAND';

/** Port data types of workflow graphs: what a node's ports and a request field carry (contract/workflows.ts). */
export type PortType = 'text' | 'image' | 'video' | 'audio' | 'avmedia' | 'file' | 'number' | 'boolean' | 'select' | 'any';

/** The UI widget of a field. */
export type FieldWidget =
  | 'text' | 'textarea' | 'number' | 'integer' | 'boolean' | 'select' | 'multiselect'
  | 'image' | 'images' | 'audio' | 'video' | 'videos' | 'json' | 'color';

/** A field's data type as the hosted service writes it on the wire (hosted-compat.md: media lists are `string[]`). */
export type WireDataType = 'string' | 'string[]' | 'number' | 'boolean' | 'object[]';

/**
 * Hosted-vocabulary facts of a field or output (shared/spec/hosted-catalog.json): the UI kind and wire
 * type the hosted clients read, when they differ from what the views derive from `type` and `dataType`.
 */
export interface HostedFieldFacts {
  /** The field's label; the views fall back to the name. */
  label?: string;
  /** Hosted UI kind (`slider`, `toggle`, `composite-select`, …) when the derived one would differ. */
  uiType?: string;
  /** Hosted wire data type when the derived one would differ. */
  wireType?: WireDataType;
}

/** A field's form hints under the hosted names (the hosted catalog's data file keeps the same ones). */
export interface HostedFormHints {
  /** Slider step of a number. */
  step?: number;
  /** Item limits and media hints. */
  maxImages?: number;
  maxAudios?: number;
  maxFiles?: number;
  multiple?: boolean;
  accept?: string;
  /** Shown under "advanced" in forms. */
  isAdvanced?: boolean;
}

/** One input field, in display order; the mode's JSON Schema is derived from its fields. */
export interface FieldSpec extends HostedFieldFacts, HostedFormHints {
  name: string;
  type: FieldWidget;
  dataType: PortType;
  required: boolean;
  description: string;
  options?: Array<string | number>;
  default?: unknown;
  /** Show this field only when another field has one of these values (UI hint). */
  showWhen?: Record<string, unknown[]>;
  placeholder?: string;
  min?: number;
  max?: number;
  maxLength?: number;
  /** For list widgets: least and most items. */
  minItems?: number;
  maxItems?: number;
  /** Integer-only numbers, regex patterns: anything extra goes straight into the JSON Schema. */
  schema?: Record<string, unknown>;
  /**
   * Other hosted field facts shown as they are in schema and catalog answers (`customFields`,
   * `customValue`, `itemFields`, `maxSizeInMB`, `maxDuration`, …); never used for validation.
   */
  extra?: Record<string, unknown>;
}

export interface OutputSpec extends HostedFieldFacts {
  /** `result` for media lists, `output` for text, or another name. */
  name: string;
  dataType: PortType;
}

export interface EngineBinding {
  /** Engine id (engines/types.ts Engine.id). */
  engine: string;
  /** Engine-specific settings: a preset, a remote model name, a voice, etc. */
  options?: Record<string, unknown>;
}

/**
 * One way of serving a mode (atelier.models.json "routes", catalog/routes.ts): an engine binding with its
 * own provider model id and its own price. A run takes the first available route in the operator's order.
 */
export interface ModelRoute {
  /** kebab-case, unique within the mode; named in the run record and in the route's circuit. */
  name: string;
  engine: EngineBinding;
  pricing: PricingRule;
}

export interface ModeDef {
  subModelId: string;
  label: string;
  category: FineCategory;
  description?: string;
  fields: FieldSpec[];
  outputs: OutputSpec[];
  pricing: PricingRule;
  engine: EngineBinding;
  /** The operator's routes, in order (the first one is also `engine`); absent: the one binding above. */
  routes?: ModelRoute[];
  features?: string[];
  /** Per-run time limit; the run fails rather than hang. */
  timeoutSeconds?: number;
  /** The hosted catalog's estimate for the mode's defaults, in microcredits, where it gives one. */
  defaultEstimateMicrocredits?: number;
  /**
   * Inputs the hosted API accepts beyond its form fields (`seed` of Seedance, `width`/`height` with a
   * "Custom" size, `sync_mode`, …), as JSON Schema properties: validated and passed on, not shown as fields.
   */
  extraInputs?: Record<string, Record<string, unknown>>;
}

export interface ModelDef {
  nodeType: string;
  name: string;
  description: string;
  category: Category;
  icon: string;
  accent: string;
  /** `local`, or the remote provider the model runs on. */
  provider: 'local' | 'openai' | 'replicate' | 'fal' | 'comfyui' | string;
  /** One mode for single-mode models. */
  modes: ModeDef[];
  /** The mode used when a call names none (hosted-compat.md); the first mode when absent. */
  defaultSubModelId?: string;
  /** The hosted catalog's key for the model (`flux-2-max`) where it differs from the nodeType. */
  parentModelId?: string;
  /** The hosted catalog's provider type (`fal`, `openrouter`, `internal`, …) and label. */
  providerType?: string;
  providerLabel?: string;
  /** The hosted catalog's cost rule, as facts, shown in catalog answers. */
  cost?: Record<string, unknown>;
  /** Retired models: listed under deprecated-models, refused at run time with a pointer to the replacement. */
  deprecated?: { at: string; replacement: string };
}
