import type { PricingRule } from '../pricing/types.js';

export type Category = 'image' | 'video' | 'audio' | 'llm' | 'utility';

/** Fine categories used by search and sub-models. */
export type FineCategory =
  | 'text-to-image' | 'image-to-image' | 'image-to-text' | 'image-understanding' | 'image-utility'
  | 'text-to-video' | 'image-to-video' | 'video-to-video' | 'video-utility' | 'lipsync'
  | 'text-to-speech' | 'voice-changing' | 'transcription' | 'music-generation' | 'sound-effects' | 'audio-utility' | 'audio-translation'
  | 'text-generation' | 'multimodal-llm'
  | 'text-utility';

export type Role = 'GENERATE' | 'EDIT' | 'TRANSFORM' | 'TRANSCRIBE' | 'UNDERSTAND';

/** Port data types of workflow graphs (api-decisions.md). */
export type PortType = 'text' | 'image' | 'video' | 'audio' | 'avmedia' | 'file' | 'number' | 'boolean' | 'select' | 'any';

/** The UI widget of a field. */
export type FieldWidget =
  | 'text' | 'textarea' | 'number' | 'integer' | 'boolean' | 'select' | 'multiselect'
  | 'image' | 'images' | 'audio' | 'video' | 'videos' | 'json' | 'color';

/** One input field, in display order; the mode's JSON Schema is derived from its fields. */
export interface FieldSpec {
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
}

export interface OutputSpec {
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

export interface ModeDef {
  subModelId: string;
  label: string;
  category: FineCategory;
  description?: string;
  fields: FieldSpec[];
  outputs: OutputSpec[];
  pricing: PricingRule;
  engine: EngineBinding;
  features?: string[];
  /** Per-run time limit; the run fails rather than hang. */
  timeoutSeconds?: number;
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
  /** One mode for single-mode models; the first is the default mode. */
  modes: ModeDef[];
  /** Retired models: listed under deprecated-models, refused at run time with a pointer to the replacement. */
  deprecated?: { at: string; replacement: string };
}
