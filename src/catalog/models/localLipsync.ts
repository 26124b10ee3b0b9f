import { f } from '../fields.js';
import type { ModelDef } from '../types.js';

/** Offline lip-sync-like animation (engine in engines/local/lipsync). No neural lip-sync runs locally. */
export const models: ModelDef[] = [
  {
    nodeType: 'mouth_animation',
    name: 'Mouth animation (amplitude-driven)',
    description: 'Amplitude-driven mouth animation, not neural lip-sync: the face mesh of @vladmandic/human locates the lips and chin in a portrait, the audio’s loudness every 40 ms sets how far the jaw drops, and the frames are drawn with canvas and encoded by ffmpeg. The mouth opens and closes with the sound but does not form visemes. H.264/AAC MP4 at 25 fps.',
    category: 'video', icon: 'audio-lines', accent: '#ec4899', provider: 'local',
    modes: [{
      subModelId: 'mouth-animation',
      label: 'Portrait + audio to talking video',
      category: 'lipsync',
      fields: [
        f.image({ description: 'A front-facing portrait with one clearly visible face' }),
        f.audio({ description: 'Speech or singing; its length sets the video length' }),
        f.number('strength', 'How far the jaw drops at full loudness (1 = natural)', { min: 0.2, max: 2, default: 1 }),
        f.integer('resolution', 'Longest side of the video in pixels (never larger than the portrait)', { min: 128, max: 1080, default: 720 }),
        f.number('max_duration', 'Longest video made, in seconds (longer audio is cut)', { min: 1, max: 60, default: 30 }),
      ],
      outputs: [{ name: 'result', dataType: 'video' }],
      pricing: { kind: 'flat', microcredits: 15000 },
      engine: { engine: 'mouth-animation' },
      timeoutSeconds: 300,
    }],
  },
];
