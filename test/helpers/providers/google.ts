import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makeMp3 } from './media.js';

/**
 * A fake of the Gemini API's generateContent (POST /v1beta/models/{model}:generateContent,
 * https://ai.google.dev/api), as published: key in `x-goog-api-key` (a wrong key is 400
 * INVALID_ARGUMENT "API key not valid", with `details[].reason: "API_KEY_INVALID"`); errors as
 * `{error: {code, message, status}}`. TTS models answer one `inlineData` part of raw 16-bit PCM at
 * 24 kHz (`audio/L16;codec=pcm;rate=24000`); Lyria models answer the lyrics as a text part and the song
 * as an `audio/mpeg` part.
 */

export const TTS_VOICES = ['Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede'];
const TTS_MODELS = ['gemini-2.5-pro-preview-tts', 'gemini-2.5-flash-preview-tts'];
const MUSIC_MODELS = ['lyria-3.5', 'lyria-3-clip-preview', 'lyria-3-pro-preview'];

const error = (code: number, status: string, message: string, details?: unknown[]): FakeReply => ({ status: code, json: { error: { code, message, status, ...(details ? { details } : {}) } } });

/** 0.1 s of a 24 kHz 16-bit tone: what a TTS answer holds. */
export function pcmTone(samples = 2400): Buffer {
  const b = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) b.writeInt16LE(Math.round(Math.sin(i / 8) * 8000), i * 2);
  return b;
}

export async function startGoogleFake(apiKey: string): Promise<FakeServer> {
  const route = (req: FakeRequest): FakeReply => {
    if (req.headers['x-goog-api-key'] !== apiKey) {
      return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]);
    }
    const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(req.path);
    if (req.method !== 'POST' || !m) return error(404, 'NOT_FOUND', `Method not found: ${req.path}`);
    const model = m[1]!;
    if (![...TTS_MODELS, ...MUSIC_MODELS].includes(model)) return error(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent.`);
    let b: any;
    try {
      b = req.json();
    } catch {
      return error(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    const parts = b.contents?.[0]?.parts;
    if (!Array.isArray(parts) || parts.length === 0) return error(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified');
    if (TTS_MODELS.includes(model)) {
      const gc = b.generationConfig ?? {};
      if (!Array.isArray(gc.responseModalities) || !gc.responseModalities.includes('AUDIO')) return error(400, 'INVALID_ARGUMENT', 'The requested combination of response modalities is not supported by the model.');
      const sc = gc.speechConfig ?? {};
      if (sc.voiceConfig && sc.multiSpeakerVoiceConfig) return error(400, 'INVALID_ARGUMENT', 'voice_config and multi_speaker_voice_config are mutually exclusive');
      const voices = sc.multiSpeakerVoiceConfig
        ? (sc.multiSpeakerVoiceConfig.speakerVoiceConfigs ?? []).map((v: any) => v.voiceConfig?.prebuiltVoiceConfig?.voiceName)
        : [sc.voiceConfig?.prebuiltVoiceConfig?.voiceName ?? 'Kore'];
      if (sc.multiSpeakerVoiceConfig && voices.length !== 2) return error(400, 'INVALID_ARGUMENT', 'Multi-speaker voice config requires exactly 2 speakers.');
      for (const v of voices) if (!TTS_VOICES.includes(v)) return error(400, 'INVALID_ARGUMENT', `Voice name ${v} is not supported.`);
      return {
        json: {
          candidates: [{ content: { parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: pcmTone().toString('base64') } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 80, totalTokenCount: 92 },
          modelVersion: model,
        },
      };
    }
    for (const p of parts) if (p.inlineData && !/^image\//.test(p.inlineData.mimeType ?? '')) return error(400, 'INVALID_ARGUMENT', `Unsupported MIME type: ${p.inlineData.mimeType}`);
    return {
      json: {
        candidates: [{ content: { parts: [{ text: '[Verse 1]\nla la la' }, { inlineData: { mimeType: 'audio/mpeg', data: makeMp3().toString('base64') } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        modelVersion: model,
      },
    };
  };
  return new FakeServer(route).start();
}
