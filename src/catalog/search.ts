import { defaultMode, isMultiMode, type Catalog } from './catalog.js';
import { CATEGORY_ROLES, CATEGORY_SYNONYMS } from './roles.js';
import type { Category, FineCategory, Role } from './types.js';
import { modeEngineKind, type EngineKind } from './engineKinds.js';

/**
 * Model search grouped by fine category (spec 4.5). A query matches, in order: a top-level category
 * (`image` → every image category), a fine category or one of its synonyms (`tts`, `lipsync`), a role
 * (`edit`), else words in model names, node types and descriptions. Pure; the REST route and the MCP
 * tool return exactly this.
 */
export const USAGE = [
  'How to run a model: (1) search here, by category (image, video, audio, text-to-speech, lipsync, transcription, music-generation, sound-effects, image-to-video …) or by keyword;',
  '(2) GET /v1/models/{modelId}/schema for the inputs of the modelId you picked (a subModelId, or the nodeType of a single-mode model);',
  '(3) optionally GET /v1/models/{modelId}/pricing and POST /v1/nodes/estimate-credits for the exact cost of your input;',
  '(4) GET /v1/credits/balance to check you can afford it;',
  '(5) POST /v1/nodes/{nodeType}/run with { subModelId?, input } (without subModelId the model\'s defaultSubModelId runs), then poll GET /v1/nodes/runs/{runId} or pass a webhook.',
  'Entries marked available: false need their provider configured (or a system package installed) on this server.',
  'Each entry says how it works in engine: ml (a trained model runs on this server), tool (a classic program such as ffmpeg or tesseract), procedural (made by rules, not learnt) or remote (a provider\'s generative model).',
  'Picking a generator: for a photo-real or illustrated picture, video, voice or song from a description, use an entry with engine remote (e.g. flux_2_pro, gpt_image_2);',
  'procedural entries (engine procedural, with a note) do not follow a description: poster_render lays out the text you give as a typographic poster, qr_code encodes text, pattern_art draws seeded abstract patterns, algorithmic_music composes by music-theory rules — pick them for a layout, a code or a pattern, never for "a red fox in snow".',
].join(' ');

/** What a procedural generator listed under a generative category makes instead of following a prompt. */
const PROCEDURAL_NOTES: Record<string, string> = {
  'poster-render': 'Procedural, not generative: lays out the given text as a typographic poster (gradient or flat background, shapes); it does not draw what the text describes.',
  'qr-code': 'Procedural, not generative: encodes the given text as a QR code.',
  'pattern-art': 'Procedural, not generative: seeded abstract patterns (waves, circles, grids); it does not draw what a prompt describes.',
  'algorithmic-music': 'Procedural, not generative: composes by music-theory rules from mood, key and tempo; no neural model, no lyrics or voice.',
  sfxr: 'Procedural: 8-bit game sound effects synthesised from a preset and a seed; it does not follow a description.',
  'mouth-animation': 'Procedural: moves a drawn jaw with the audio\'s loudness on a still photo; not neural lipsync (for that, a remote lipsync model).',
};

/** In a group, a generative model comes before a procedural one, so an agent reading the first entry gets what it asked for. */
const KIND_ORDER: Record<EngineKind, number> = { remote: 0, ml: 0, tool: 1, procedural: 2 };

export const HINT = 'Pass ?query= with a category (image, video, audio, text-to-speech, lipsync, transcription, music-generation, sound-effects, image-to-video) or a keyword (e.g. upscale, qr, flux) to narrow the catalog.';

export const ROLE_HINTS: Record<Role, string[]> = {
  GENERATE: ['text-to-image', 'text-to-video', 'text-to-speech', 'music-generation', 'sound-effects', 'text-generation'],
  EDIT: ['image-to-image', 'upscale', 'voice-changing', 'video-utility', 'audio-utility'],
  TRANSFORM: ['image-to-video', 'lipsync', 'audio-translation'],
  TRANSCRIBE: ['transcription'],
  UNDERSTAND: ['image-to-text', 'image-understanding', 'multimodal-llm'],
};

const TOP: Category[] = ['image', 'video', 'audio', 'llm', 'utility'];

export interface SearchEntry {
  modelId: string;
  nodeType: string;
  subModelId?: string;
  /** The mode a run of `nodeType` without subModelId uses. */
  defaultSubModelId: string;
  name: string;
  description: string;
  available: boolean;
  engine: EngineKind;
  note?: string;
}

function norm(s: string): string {
  return s.toLowerCase().replace(/[_\s]+/g, ' ').trim();
}

export function search(catalog: Catalog, query: string | undefined) {
  // Every live mode, with the fine category it belongs to and the top-level category of its model.
  const rows = catalog.models.filter((m) => !m.deprecated).flatMap((model) => model.modes.map((mode) => ({ model, mode })));
  const q = query === undefined ? undefined : norm(query);

  let matched: typeof rows;
  if (q === undefined || q === '') {
    matched = rows;
  } else if ((TOP as string[]).includes(q)) {
    matched = rows.filter((r) => r.model.category === q);
  } else {
    const dashed = q.replace(/ /g, '-');
    const byCategory = rows.filter((r) => r.mode.category === dashed || (CATEGORY_SYNONYMS[r.mode.category] ?? []).includes(q));
    const byRole = rows.filter((r) => CATEGORY_ROLES[r.mode.category] === q.toUpperCase());
    if (byCategory.length) matched = byCategory;
    else if (byRole.length) matched = byRole;
    else {
      const words = q.split(' ').filter(Boolean);
      matched = rows.filter((r) => {
        const hay = norm(`${r.model.nodeType} ${r.model.name} ${r.model.description} ${r.mode.label} ${r.mode.subModelId} ${r.mode.description ?? ''}`);
        return words.every((w) => hay.includes(w));
      });
    }
  }

  const base = { usage: USAGE, ...(q === undefined || q === '' ? { hint: HINT } : {}) };
  if (matched.length === 0) {
    return {
      ...base,
      noMatch: `No model category or model matches "${query}". Try one of the keywords in categoryRoleHints, or search without a query for the whole catalog.`,
      categoryRoleHints: ROLE_HINTS,
    };
  }
  const modelCatalog: Record<string, SearchEntry[]> = {};
  const categoryRoles: Record<string, Role> = {};
  for (const { model, mode } of matched) {
    const cat: FineCategory = mode.category;
    categoryRoles[cat] = CATEGORY_ROLES[cat];
    const multi = isMultiMode(model);
    const kind = modeEngineKind(mode);
    const note = kind === 'procedural' ? PROCEDURAL_NOTES[mode.engine.engine] ?? 'Procedural: made by rules, not a generative model.' : undefined;
    (modelCatalog[cat] ??= []).push({
      modelId: multi ? mode.subModelId : model.nodeType,
      nodeType: model.nodeType,
      ...(multi ? { subModelId: mode.subModelId } : {}),
      defaultSubModelId: defaultMode(model).subModelId,
      name: multi ? `${model.name} — ${mode.label}` : model.name,
      description: mode.description ?? model.description,
      available: catalog.availability(model, mode).available,
      engine: kind,
      ...(note ? { note } : {}),
    });
  }
  for (const list of Object.values(modelCatalog)) list.sort((a, b) => KIND_ORDER[a.engine] - KIND_ORDER[b.engine]);
  return { modelCatalog, categoryRoles, ...base };
}
