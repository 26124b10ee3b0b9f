import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';

/**
 * A fake of Deepgram's pre-recorded API (POST /v1/listen, https://developers.deepgram.com/reference),
 * as published: `Authorization: Token <key>` (401 `{err_code: "INVALID_AUTH", err_msg}` otherwise);
 * the audio as the raw body with its content type, or JSON `{url}`; features as query parameters;
 * the answer `{metadata, results: {channels: [{alternatives: [{transcript, confidence, words, paragraphs?}],
 * detected_language?}], utterances?, summary?}}`; bad input 400 `{err_code, err_msg, request_id}`.
 * It "hears" a fixed two-speaker conversation in any readable audio.
 */

const SPOKEN: Array<[speaker: number, text: string]> = [
  [0, 'Welcome back to the show.'],
  [1, 'Thanks for having me, it is good to be here.'],
];
const MODELS = ['nova-3', 'nova-2', 'nova', 'enhanced', 'base', 'whisper'];
const REDACT = ['pci', 'pii', 'phi', 'numbers', 'aggressive_numbers', 'ssn', 'true', 'false'];

export interface DeepgramFake extends FakeServer {
  /** The summary the next summarize request returns (default: a fixed sentence). */
  summary?: string;
}

const bad = (msg: string, code = 'Bad Request'): FakeReply => ({ status: 400, json: { err_code: code, err_msg: msg, request_id: randomUUID() } });

/** Whether bytes start like a container Deepgram decodes (WAV, MP3, Ogg, FLAC, MP4/M4A, WebM). */
function looksLikeMedia(b: Buffer): boolean {
  const a = (o: number, s: string) => b.toString('latin1', o, o + s.length) === s;
  return (a(0, 'RIFF') && a(8, 'WAVE')) || a(0, 'ID3') || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0) || a(0, 'OggS') || a(0, 'fLaC') || a(4, 'ftyp') || b.readUInt32BE(0) === 0x1a45dfa3;
}

export async function startDeepgramFake(apiKey: string): Promise<DeepgramFake> {
  const route = (req: FakeRequest, fake: DeepgramFake): FakeReply => {
    if (req.headers.authorization !== `Token ${apiKey}`) return { status: 401, json: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: randomUUID() } };
    if (req.method !== 'POST' || req.path !== '/v1/listen') return { status: 404, json: { err_code: 'NOT_FOUND', err_msg: 'Not Found', request_id: randomUUID() } };
    const q = req.query;
    const model = q.get('model') ?? 'base';
    if (!MODELS.includes(model)) return bad('No such model/language/tier combination found.');
    const redact = q.getAll('redact');
    if (redact.some((r) => !REDACT.includes(r))) return bad(`Invalid value for redact: ${redact.join(',')}`);
    if (q.has('utt_split') && !(Number(q.get('utt_split')) > 0)) return bad('utt_split must be a positive number');
    if (q.has('language') && q.get('detect_language') === 'true') return bad('language and detect_language cannot both be set');
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) {
      let body: any;
      try {
        body = req.json();
      } catch {
        return bad('Invalid JSON body');
      }
      if (typeof body.url !== 'string') return bad('JSON body must contain a url');
      return bad('Bad Request: could not fetch the URL given'); // the fake does not go to the internet
    }
    if (req.body.length === 0) return bad('Bad Request: the payload is empty', 'Bad Request');
    if (!looksLikeMedia(req.body)) return bad('Bad Request: failed to process audio: corrupt or unsupported data');

    const diarize = q.get('diarize') === 'true';
    const words = SPOKEN.flatMap(([speaker, text], si) =>
      text.split(' ').map((w, i) => ({ word: w.toLowerCase().replace(/[^a-z']/g, ''), punctuated_word: w, start: si * 3 + i * 0.4, end: si * 3 + i * 0.4 + 0.35, confidence: 0.98, ...(diarize ? { speaker, speaker_confidence: 0.9 } : {}) })),
    );
    const transcript = SPOKEN.map(([, t]) => t).join(' ');
    const alternative: Record<string, unknown> = { transcript, confidence: 0.97, words };
    if (q.get('paragraphs') === 'true') {
      alternative.paragraphs = {
        transcript: SPOKEN.map(([s, t]) => (diarize ? `\nSpeaker ${s}: ${t}` : `\n${t}`)).join('\n'),
        paragraphs: SPOKEN.map(([s, t], i) => ({ sentences: [{ text: t, start: i * 3, end: i * 3 + 2.5 }], num_words: t.split(' ').length, start: i * 3, end: i * 3 + 2.5, ...(diarize ? { speaker: s } : {}) })),
      };
    }
    const channel: Record<string, unknown> = { alternatives: [alternative] };
    if (q.get('detect_language') === 'true') Object.assign(channel, { detected_language: 'en', language_confidence: 0.99 });
    const results: Record<string, unknown> = { channels: q.get('multichannel') === 'true' ? [channel, channel] : [channel] };
    if (q.get('utterances') === 'true') {
      results.utterances = SPOKEN.map(([s, t], i) => ({ start: i * 3, end: i * 3 + 2.5, confidence: 0.97, channel: 0, transcript: t, words: [], speaker: s, id: randomUUID() }));
    }
    if (q.get('summarize') === 'v2' || q.get('summarize') === 'true') results.summary = { result: 'success', short: fake.summary ?? 'A host welcomes a guest to the show.' };
    return {
      headers: { 'dg-request-id': randomUUID() },
      json: {
        metadata: { transaction_key: 'deprecated', request_id: randomUUID(), sha256: 'x', created: new Date().toISOString(), duration: 6.1, channels: 1, models: [randomUUID()], model_info: {} },
        results,
      },
    };
  };
  const fake = new FakeServer((req, f) => route(req, f as DeepgramFake)) as DeepgramFake;
  return fake.start();
}
