import { randomBytes } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makeMp3, makeMp4Head } from './media.js';

/**
 * A fake of the ElevenLabs REST API (https://elevenlabs.io/docs/api-reference), under /v1, as its
 * reference describes it: key in the `xi-api-key` header (401 `{detail:{status:"invalid_api_key"}}`
 * otherwise); text-to-speech, sound generation, music, audio isolation and speech-to-speech answer the
 * audio bytes (`audio/mpeg`) directly, with FastAPI-style 422 bodies for bad input; dubbing is a job:
 * POST /v1/dubbing → `{dubbing_id, expected_duration_sec}`, GET /v1/dubbing/{id} → `{status: "dubbing" |
 * "dubbed" | "failed"}`, GET /v1/dubbing/{id}/audio/{lang} → the file (425 while not ready), DELETE.
 */

export const KNOWN_VOICES = ['21m00Tcm4TlvDq8ikWAM', 'JBFqnCBsd6RMkjVDRZzb'];
const FORMATS = /^(mp3_(22050_32|44100_(32|64|96|128|192))|pcm_(8000|16000|22050|24000|44100|48000)|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$/;

interface Dub {
  id: string;
  target: string;
  source: string;
  polls: number;
  /** Polls answered "dubbing" before the outcome. */
  pollsNeeded: number;
  fail?: string;
  video: boolean;
  deleted: boolean;
}

export interface ElevenLabsFake extends FakeServer {
  dubs: Map<string, Dub>;
  /** Polls the next dubbing jobs take; a huge number keeps a job running (cancel tests). */
  dubbingPolls: number;
  /** Makes the next dubbing job fail with this message. */
  failNextDub?: string;
}

const validation = (loc: string[], msg: string): FakeReply => ({ status: 422, json: { detail: [{ loc, msg, type: 'value_error' }] } });
const audio = (): FakeReply => ({ headers: { 'content-type': 'audio/mpeg', 'request-id': randomBytes(8).toString('hex') }, body: makeMp3() });

async function formOf(req: FakeRequest): Promise<FormData | undefined> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('multipart/form-data')) return undefined;
  return new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(req.body) }).formData();
}

export async function startElevenLabsFake(apiKey: string): Promise<ElevenLabsFake> {
  const dubs = new Map<string, Dub>();

  const route = async (req: FakeRequest, fake: ElevenLabsFake): Promise<FakeReply> => {
    if (req.headers['xi-api-key'] !== apiKey) return { status: 401, json: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } } };
    const of = req.query.get('output_format');
    if (of !== null && !FORMATS.test(of)) return validation(['query', 'output_format'], `unsupported output format ${of}`);
    const p = req.path;
    let m: RegExpExecArray | null;

    if (req.method === 'POST' && (m = /^\/v1\/text-to-speech\/([^/]+)$/.exec(p))) {
      if (!KNOWN_VOICES.includes(m[1]!)) return { status: 404, json: { detail: { status: 'voice_not_found', message: `A voice with voice_id ${m[1]} was not found.` } } };
      const b = req.json();
      if (typeof b.text !== 'string' || !b.text) return validation(['body', 'text'], 'field required');
      if (b.model_id && !['eleven_v3', 'eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_turbo_v2_5'].includes(b.model_id)) return { status: 400, json: { detail: { status: 'model_not_found', message: `Model ${b.model_id} does not exist` } } };
      const vs = b.voice_settings ?? {};
      for (const k of ['stability', 'similarity_boost', 'style']) if (vs[k] !== undefined && (vs[k] < 0 || vs[k] > 1)) return validation(['body', 'voice_settings', k], 'must be between 0 and 1');
      if (b.apply_language_text_normalization === true && b.language_code !== 'ja') return { status: 400, json: { detail: { status: 'invalid_parameters', message: 'apply_language_text_normalization is only supported for Japanese' } } };
      return audio();
    }
    if (req.method === 'POST' && p === '/v1/sound-generation') {
      const b = req.json();
      if (typeof b.text !== 'string' || !b.text) return validation(['body', 'text'], 'field required');
      if (b.duration_seconds !== undefined && b.duration_seconds !== null && (b.duration_seconds < 0.5 || b.duration_seconds > 30)) return validation(['body', 'duration_seconds'], 'must be between 0.5 and 30');
      if (b.prompt_influence !== undefined && (b.prompt_influence < 0 || b.prompt_influence > 1)) return validation(['body', 'prompt_influence'], 'must be between 0 and 1');
      return audio();
    }
    if (req.method === 'POST' && p === '/v1/music') {
      const b = req.json();
      if (b.prompt !== undefined && b.composition_plan !== undefined) return { status: 400, json: { detail: { status: 'invalid_parameters', message: 'Only one of prompt or composition_plan may be given' } } };
      if (b.prompt === undefined && b.composition_plan === undefined) return { status: 400, json: { detail: { status: 'invalid_parameters', message: 'One of prompt or composition_plan is required' } } };
      if (b.music_length_ms !== undefined && (b.music_length_ms < 3000 || b.music_length_ms > 600000)) return validation(['body', 'music_length_ms'], 'must be between 3000 and 600000');
      if (b.composition_plan && b.force_instrumental !== undefined) return { status: 400, json: { detail: { status: 'invalid_parameters', message: 'force_instrumental can only be used with prompt' } } };
      if (b.composition_plan && !(Array.isArray(b.composition_plan.sections) && b.composition_plan.sections.every((s: any) => Array.isArray(s.lines) && Array.isArray(s.positive_local_styles) && typeof s.duration_ms === 'number'))) {
        return validation(['body', 'composition_plan'], 'sections must list lines and styles as arrays');
      }
      return audio();
    }
    if (req.method === 'POST' && p === '/v1/audio-isolation') {
      const f = (await formOf(req))?.get('audio');
      if (!(f instanceof Blob) || f.size === 0) return validation(['body', 'audio'], 'field required');
      return audio();
    }
    if (req.method === 'POST' && (m = /^\/v1\/speech-to-speech\/([^/]+)$/.exec(p))) {
      if (!KNOWN_VOICES.includes(m[1]!)) return { status: 404, json: { detail: { status: 'voice_not_found', message: `A voice with voice_id ${m[1]} was not found.` } } };
      const form = await formOf(req);
      const f = form?.get('audio');
      if (!(f instanceof Blob) || f.size === 0) return validation(['body', 'audio'], 'field required');
      const model = form!.get('model_id');
      if (model !== null && !['eleven_english_sts_v2', 'eleven_multilingual_sts_v2'].includes(String(model))) return { status: 400, json: { detail: { status: 'model_not_found', message: `Model ${String(model)} does not support speech to speech` } } };
      const vs = form!.get('voice_settings');
      if (vs !== null) {
        try {
          JSON.parse(String(vs));
        } catch {
          return validation(['body', 'voice_settings'], 'must be a JSON object');
        }
      }
      return audio();
    }
    if (req.method === 'POST' && p === '/v1/dubbing') {
      const form = await formOf(req);
      const file = form?.get('file');
      const target = form?.get('target_lang');
      if (!target) return validation(['body', 'target_lang'], 'field required');
      if (!(file instanceof Blob) && !form?.get('source_url')) return { status: 400, json: { detail: { status: 'invalid_parameters', message: 'Either file or source_url must be provided' } } };
      const id = randomBytes(10).toString('hex');
      dubs.set(id, {
        id, target: String(target), source: String(form!.get('source_lang') ?? 'auto'), polls: 0, pollsNeeded: fake.dubbingPolls,
        fail: fake.failNextDub, video: file instanceof Blob && file.type.startsWith('video/'), deleted: false,
      });
      fake.failNextDub = undefined;
      return { json: { dubbing_id: id, expected_duration_sec: 12.5 } };
    }
    if ((m = /^\/v1\/dubbing\/([^/]+)(?:\/audio\/([^/]+))?$/.exec(p))) {
      const d = dubs.get(m[1]!);
      if (!d || d.deleted) return { status: 404, json: { detail: { status: 'dubbing_not_found', message: 'Dubbing not found' } } };
      const ready = d.polls >= d.pollsNeeded;
      if (req.method === 'DELETE' && !m[2]) {
        d.deleted = true;
        return { json: { status: 'ok' } };
      }
      if (req.method === 'GET' && !m[2]) {
        d.polls++;
        const status = !ready ? 'dubbing' : d.fail ? 'failed' : 'dubbed';
        return {
          json: {
            dubbing_id: d.id, name: 'atelier', status, source_language: ready ? 'en' : null, target_languages: [d.target], created_at: new Date().toISOString(), editable: false,
            media_metadata: { content_type: d.video ? 'video/mp4' : 'audio/mpeg', duration: 12.5 }, ...(status === 'failed' ? { error: d.fail } : {}),
          },
        };
      }
      if (req.method === 'GET' && m[2]) {
        if (m[2] !== d.target) return { status: 404, json: { detail: { status: 'language_not_found', message: `Language ${m[2]} is not a target of this dubbing` } } };
        if (!ready || d.fail) return { status: 425, json: { detail: { status: 'dubbing_not_ready', message: 'Dubbing not ready' } } };
        return d.video ? { headers: { 'content-type': 'video/mp4' }, body: makeMp4Head() } : audio();
      }
    }
    return { status: 404, json: { detail: 'Not Found' } };
  };

  const fake = new FakeServer((req, f) => route(req, f as ElevenLabsFake)) as ElevenLabsFake;
  fake.dubs = dubs;
  fake.dubbingPolls = 2;
  return fake.start();
}
