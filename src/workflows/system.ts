import type { Db } from '../db/pool.js';
import { positionFor } from './layout.js';
import type { Graph, GraphEdge, GraphNode } from './types.js';
import type { WorkflowService } from './service.js';
import { UPSERT_SYSTEM_WORKFLOW } from './queries.js';

/**
 * Predefined workflows built from the local models, so they run on any machine after `npm ci`. Defined
 * here, validated against the catalog and upserted by slug at start; users run them by slug or duplicate
 * them to edit.
 */
interface SystemWorkflow {
  slug: string;
  name: string;
  description: string;
  category: string;
  graph: Graph;
}

const n = (id: string, type: string, column: number, row: number, data: Record<string, unknown> = {}, subModelId: string | null = null, label: string | null = null): GraphNode =>
  ({ id, type, subModelId, label, position: positionFor(column, row), data });
const e = (source: string, sourceHandle: string, target: string, targetHandle: string): GraphEdge =>
  ({ id: `${source}-${sourceHandle}-${target}-${targetHandle}`.replace(/[^A-Za-z0-9_-]/g, '_'), source, sourceHandle, target, targetHandle });
const request = (fields: Array<{ id: string; name: string; type: string; value?: unknown }>) => n('request', 'request', 0, 0, { fields }, null, 'Request');
const response = (column: number) => n('response', 'response', column, 0, {}, null, 'Response');

export const SYSTEM_WORKFLOWS: SystemWorkflow[] = [
  {
    slug: 'narrated-waveform',
    name: 'Narrated waveform video',
    description: 'Speaks your text with eSpeak NG and turns the speech into a waveform video. Returns the WAV and the MP4.',
    category: 'video',
    graph: {
      nodes: [request([{ id: 'text', name: 'text', type: 'text', value: 'Hello from Atelier.' }]), n('speech', 'espeak_tts', 1, 0), n('video', 'waveform_video', 2, 0), response(3)],
      edges: [e('request', 'text', 'speech', 'in:text'), e('speech', 'out:result', 'video', 'in:audio_url'), e('speech', 'out:result', 'response', 'result'), e('video', 'out:result', 'response', 'result')],
    },
  },
  {
    slug: 'poster-to-video',
    name: 'Poster to video',
    description: 'Renders a typographic poster of your title (procedural) and animates it with a slow Ken Burns zoom.',
    category: 'video',
    graph: {
      nodes: [request([{ id: 'title', name: 'title', type: 'text', value: 'Atelier' }]), n('poster', 'poster_render', 1, 0, { width: 1080, height: 1350 }), n('motion', 'ken_burns_video', 2, 0, { duration: 6, width: 720, height: 900 }), response(3)],
      edges: [e('request', 'title', 'poster', 'in:text'), e('poster', 'out:result', 'motion', 'in:image_url'), e('poster', 'out:result', 'response', 'result'), e('motion', 'out:result', 'response', 'result')],
    },
  },
  {
    slug: 'sound-scene',
    name: 'Sound scene',
    description: 'Generates an explosion effect (sfxr) and a short algorithmic music bed in parallel, then mixes them into one WAV.',
    category: 'audio',
    graph: {
      nodes: [
        request([{ id: 'seed', name: 'seed', type: 'number', value: 7 }]),
        n('effect', 'sfxr_sound_effects', 1, 0, {}, 'sfxr-explosion'),
        n('music', 'algorithmic_music', 1, 1, { duration: 8, mood: 'calm' }),
        n('mix', 'mix_audio', 2, 0),
        response(3),
      ],
      edges: [e('request', 'seed', 'effect', 'in:seed'), e('request', 'seed', 'music', 'in:seed'), e('effect', 'out:result', 'mix', 'in:audio_urls'), e('music', 'out:result', 'mix', 'in:audio_urls'), e('mix', 'out:result', 'response', 'result')],
    },
  },
  {
    slug: 'read-an-image',
    name: 'Read an image',
    description: 'Reads the text in an image (Tesseract OCR) and describes what is in it (a sentence built from real detections), in parallel.',
    category: 'image',
    graph: {
      nodes: [request([{ id: 'image', name: 'image', type: 'image' }]), n('ocr', 'ocr_image', 1, 0), n('describe', 'describe_image', 1, 1), response(2)],
      edges: [e('request', 'image', 'ocr', 'in:image_url'), e('request', 'image', 'describe', 'in:image_url'), e('ocr', 'out:output', 'response', 'result'), e('describe', 'out:output', 'response', 'result')],
    },
  },
  {
    slug: 'talking-portrait',
    name: 'Talking portrait',
    description: 'Speaks your text with eSpeak NG and animates the mouth of the face in your portrait to its loudness (amplitude-driven, not neural lip-sync).',
    category: 'video',
    graph: {
      nodes: [request([{ id: 'portrait', name: 'portrait', type: 'image' }, { id: 'text', name: 'text', type: 'text', value: 'Hello, I am a talking portrait.' }]), n('speech', 'espeak_tts', 1, 0), n('animate', 'mouth_animation', 2, 0), response(3)],
      edges: [e('request', 'text', 'speech', 'in:text'), e('request', 'portrait', 'animate', 'in:image_url'), e('speech', 'out:result', 'animate', 'in:audio_url'), e('animate', 'out:result', 'response', 'result')],
    },
  },
];

/** Stable ids, so links to a system workflow by id keep working across restarts. */
export function systemWorkflowId(slug: string): string {
  return `wf_sys${slug.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
}

/** Validates each definition against this build's catalog and upserts it. Returns the slugs installed. */
export async function installSystemWorkflows(db: Db, workflows: WorkflowService): Promise<string[]> {
  const installed: string[] = [];
  for (const w of SYSTEM_WORKFLOWS) {
    workflows.check(w.graph, true);
    await db.query(
      UPSERT_SYSTEM_WORKFLOW,
      [systemWorkflowId(w.slug), w.slug, w.name, w.description, w.category, w.graph],
    );
    installed.push(w.slug);
  }
  return installed;
}
