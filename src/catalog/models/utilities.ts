import { f } from '../fields.js';
import type { FieldSpec, ModelDef, ModeDef } from '../types.js';

/**
 * The hosted catalog's internal utilities, run here by local engines under the hosted interface
 * (docs/api.md, "Hosted utilities"): the same ids, input names, ranges, defaults and output keys as the
 * hosted service, so a client written for it sends and reads the same JSON. Engines:
 * engines/local/image/edit/crop.ts, engines/local/video/{merge,extractAudio,mergeAudioVideo}.ts and
 * engines/local/image/ml/documentOcr.ts.
 *
 * Prices: the hosted cost rules bill per minute of media; Atelier prices a run when it is created and does
 * not probe media lengths then, and these engines stop at 60 s of output (engines/local/video/limits.ts),
 * so each run costs the hosted price of one minute — the hosted `defaultEstimateMicrocredits`.
 */

const PX_MAX = 100_000;

/** A crop position or size in pixels: optional, `null` allowed (the hosted schema marks them nullable). */
const px = (name: string, label: string, description: string, min: number): FieldSpec =>
  f.integer(name, description, {
    min, step: 1, label, uiType: 'number', isAdvanced: true,
    schema: { type: ['integer', 'null'] }, extra: { skipExecutionDefault: true },
  });

const percent = (name: string, label: string, description: string, def: number, step: number): FieldSpec =>
  f.number(name, description, { min: 0, max: 100, default: def, step, label, uiType: 'slider' });

/** A single-mode utility: the sub-model id is the nodeType, as in the hosted catalog. */
function utility(m: Omit<ModelDef, 'modes' | 'provider' | 'defaultSubModelId' | 'category'> & { mode: Omit<ModeDef, 'subModelId'> }): ModelDef {
  const { mode, ...rest } = m;
  return { ...rest, category: 'utility', provider: 'local', defaultSubModelId: m.nodeType, modes: [{ subModelId: m.nodeType, ...mode }] };
}

export const models: ModelDef[] = [
  utility({
    nodeType: 'crop_image',
    name: 'Crop Image',
    description: 'Cuts a rectangle out of an image. Give it in percent of the picture (x_percent, y_percent, width_percent, height_percent; the defaults keep the whole image) or in pixels (x_px, y_px, width_px, height_px; a width and height without a position are cut from the centre). Pixels win when both are given; a rectangle reaching past the edge is clipped to the picture. PNG out (sharp).',
    icon: 'crop', accent: '#64748b', providerType: 'internal', providerLabel: 'Atelier', cost: { type: 'per_image', value: 0.005 },
    mode: {
      label: 'Crop Image', category: 'utility',
      fields: [
        f.image({ label: 'Input Image', maxImages: 1 }),
        percent('x_percent', 'X Position (%)', 'Left edge of the rectangle, in percent of the image width', 0, 1),
        percent('y_percent', 'Y Position (%)', 'Top edge of the rectangle, in percent of the image height', 0, 1),
        percent('width_percent', 'Width (%)', 'Width of the rectangle, in percent of the image width', 100, 0.001),
        percent('height_percent', 'Height (%)', 'Height of the rectangle, in percent of the image height', 100, 0.001),
        px('width_px', 'Width (px)', 'Width of the rectangle in pixels; with the other pixel fields it replaces the percentages', 1),
        px('height_px', 'Height (px)', 'Height of the rectangle in pixels', 1),
        px('x_px', 'X Position (px)', 'Left edge in pixels; without it the rectangle is centred across', 0),
        px('y_px', 'Y Position (px)', 'Top edge in pixels; without it the rectangle is centred down', 0),
      ],
      // The hosted schema also takes the pixel rectangle as one object outside the form (pixel fields win).
      extraInputs: {
        crop: {
          type: ['object', 'null'], additionalProperties: false,
          properties: Object.fromEntries(['x', 'y', 'width', 'height'].map((k) => [k, { type: ['integer', 'null'], minimum: k === 'x' || k === 'y' ? 0 : 1, maximum: PX_MAX }])),
        },
      },
      outputs: [{ name: 'image_url', dataType: 'image', label: 'Output Image', wireType: 'string[]' }],
      // The hosted per_image rule: a run crops one image.
      pricing: { kind: 'flat', microcredits: 5000 },
      defaultEstimateMicrocredits: 5000,
      engine: { engine: 'image-crop' }, timeoutSeconds: 60,
    },
  }),
  utility({
    nodeType: 'merge_videos',
    name: 'Merge Videos',
    description: 'Joins 2 to 100 videos end to end into one MP4, bringing every clip to the first one\'s size (letterboxed), frame rate and audio format; clips without sound get silence. Between clips: a cut (none), a half-second crossfade (fade) or a pixel dissolve (dissolve), the sound crossfading with the pictures. Rendered by ffmpeg; the output stops at 60 s.',
    icon: 'combine', accent: '#6366f1', providerType: 'internal', providerLabel: 'Atelier', cost: { type: 'per_minute', baseValue: 0.04, extraPerVideo: 0.01 },
    mode: {
      label: 'Merge Videos', category: 'utility',
      fields: [
        f.videos({ minItems: 2, maxItems: 100, label: 'Videos', uiType: 'video', description: 'The videos, in order (2 to 100)' }),
        f.select('transition', 'How one clip gives way to the next: a cut, a crossfade, or a random pixel dissolve', ['none', 'fade', 'dissolve'], { label: 'Transition' }),
      ],
      outputs: [{ name: 'video_url', dataType: 'video', label: 'Merged Video', wireType: 'string[]' }],
      pricing: { kind: 'flat', microcredits: 50_000 },
      defaultEstimateMicrocredits: 50_000,
      engine: { engine: 'video-merge' }, timeoutSeconds: 600,
    },
  }),
  utility({
    nodeType: 'extract_audio',
    name: 'Extract Audio',
    description: 'Takes the soundtrack out of a video as MP3, WAV (16-bit PCM) or AAC (in an ADTS stream), first 60 s. Fails clearly when the video has no sound.',
    icon: 'file-audio', accent: '#0ea5e9', providerType: 'internal', providerLabel: 'Atelier', cost: { type: 'per_minute', value: 0.02 },
    mode: {
      label: 'Extract Audio', category: 'utility',
      fields: [
        f.video({ label: 'Video', maxItems: 1 }),
        f.select('format', 'mp3 (small), wav (uncompressed) or aac', ['mp3', 'wav', 'aac'], { label: 'Format' }),
      ],
      outputs: [{ name: 'audio_url', dataType: 'audio', label: 'Extracted Audio', wireType: 'string[]' }],
      pricing: { kind: 'flat', microcredits: 20_000 },
      defaultEstimateMicrocredits: 20_000,
      engine: { engine: 'video-extract-audio' }, timeoutSeconds: 120,
    },
  }),
  utility({
    nodeType: 'merge_audio_video',
    name: 'Merge Audio & Video',
    description: 'Lays an audio track under a video, replacing the video\'s own sound: the audio is cut to the video\'s length or padded with silence, and scaled by audio_volume (0 silent, 1 as it is, 2 twice as loud). H.264/AAC MP4, first 60 s.',
    icon: 'clapperboard', accent: '#8b5cf6', providerType: 'internal', providerLabel: 'Atelier', cost: { type: 'per_minute', value: 0.03 },
    mode: {
      label: 'Merge Audio & Video', category: 'utility',
      fields: [
        f.video({ label: 'Video', maxItems: 1 }),
        f.audio({ label: 'Audio', maxAudios: 1 }),
        f.number('audio_volume', 'Loudness of the audio: 0 silent, 1 unchanged, 2 twice as loud', { min: 0, max: 2, default: 1, step: 0.1, label: 'Audio Volume', uiType: 'slider' }),
      ],
      outputs: [{ name: 'video_url', dataType: 'video', label: 'Merged Video', wireType: 'string[]' }],
      pricing: { kind: 'flat', microcredits: 30_000 },
      defaultEstimateMicrocredits: 30_000,
      engine: { engine: 'video-merge-audio' }, timeoutSeconds: 300,
    },
  }),
  utility({
    nodeType: 'document_ocr',
    name: 'Document OCR',
    description: 'Reads the text of a document locally with Tesseract (tesseract.js, English): an image (PNG, JPEG, WebP, GIF, BMP, TIFF, AVIF), or a PDF whose pages are rendered by poppler\'s pdftoppm (at most 50 pages; PDFs need the Debian package poppler-utils). Word (.docx) and PowerPoint (.pptx) files are refused: export them as PDF. Answers the text (up to 20,000 characters) and a Markdown file with all of it, pages separated.',
    icon: 'scan-text', accent: '#ca8a04', providerType: 'internal', providerLabel: 'Atelier (Tesseract)', cost: { type: 'fixed', value: 0.00065 },
    mode: {
      label: 'Document OCR', category: 'utility',
      fields: [
        {
          name: 'file_url', type: 'text', dataType: 'file', required: true, label: 'Document or Image', uiType: 'file', wireType: 'string',
          description: 'The document: a PDF or an image, as an https URL, a data: URL or a file URL of this service',
          accept: '.pdf,.docx,.pptx,.png,.jpg,.jpeg,.avif,.tif,.tiff,.bmp,.gif,.webp', multiple: false, maxFiles: 1,
          schema: { minLength: 1, maxLength: 2_000_000 },
        },
      ],
      outputs: [
        { name: 'text', dataType: 'text', label: 'Text Preview', uiType: 'textarea', wireType: 'string' },
        { name: 'content_url', dataType: 'file', label: 'Full Text URL', uiType: 'text', wireType: 'string' },
      ],
      pricing: { kind: 'flat', microcredits: 650 },
      defaultEstimateMicrocredits: 650,
      engine: { engine: 'document-ocr' }, timeoutSeconds: 600,
    },
  }),
];
