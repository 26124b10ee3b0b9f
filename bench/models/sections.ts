import fs from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { font, registerFonts, type FontName } from '../../src/engines/local/image/common/fonts.js';
import { dataUrl, fileOf, samplePath, textOf, type ModelRunner } from './harness.js';
import { cer, iou, mean, meanSsim, precisionRecall, psnr, wer } from './metrics.js';

/** One measured figure beside its baseline (lower or higher is better, as `better` says). */
export interface QualityRow {
  section: string;
  model: string;
  metric: string;
  figure: number;
  unit: string;
  baseline?: number;
  baselineLabel?: string;
  better: 'lower' | 'higher';
  n: number;
  note?: string;
}

type Log = (msg: string) => void;

// ---------------------------------------------------------------- OCR

/** Sentences for rendered pages: mixed case, digits, punctuation. Written for this benchmark. */
const OCR_LINES = [
  'Invoice 2048 was paid on 14 March, with 3 items.',
  'The quick brown fox jumps over the lazy dog.',
  'Call 555-0199 or write to orders@example.com today!',
  'Total: $1,284.50 (tax included) — thank you.',
];

function renderedText(fontName: FontName, px: number, opts: { degrade?: boolean } = {}): Buffer {
  registerFonts();
  const lh = Math.round(px * 1.6);
  const c = createCanvas(Math.round(px * 30), lh * OCR_LINES.length + px * 2);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#1a1a1a';
  g.font = font(fontName, px);
  g.textBaseline = 'top';
  OCR_LINES.forEach((l, i) => g.fillText(l, px, px + i * lh));
  return c.toBuffer('image/png');
}

/** A photocopy-like page: the rendered text rotated 1.2°, blurred, grey-tinted, with noise and JPEG artefacts. */
async function degraded(png: Buffer): Promise<Buffer> {
  const meta = await sharp(png).metadata();
  const noise = Buffer.alloc(meta.width! * meta.height! * 3);
  let seed = 7;
  for (let i = 0; i < noise.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    noise[i] = 128 + ((seed >> 16) % 41) - 20;
  }
  const noisy = await sharp(png).removeAlpha().composite([{ input: noise, raw: { width: meta.width!, height: meta.height!, channels: 3 }, blend: 'overlay' }]).png().toBuffer();
  return sharp(noisy).rotate(1.2, { background: '#f4f1ea' }).blur(0.8).linear(0.85, 20).jpeg({ quality: 55 }).toBuffer();
}

/** scikit-image's page.png: a photographed book page (uneven light, curvature). Transcribed by hand for this benchmark. */
const PAGE_REFERENCE = [
  'Region-based segmentation',
  'Let us first determine markers of the coins and the',
  'background. These markers are pixels that we can label',
  'unambiguously as either object or background. Here,',
  'the markers are found at the two extreme parts of the',
  'histogram of grey values:',
  '>>> markers = np.zeros_like(coins)',
].join('\n');

const OCR_MODELS: Array<[string, string | undefined, string]> = [
  ['ocr_image', 'ocr-image-tesseract', 'ocr_image/tesseract.js'],
  ['ocr_image', 'ocr-image-paddle', 'ocr_image/PaddleOCR'],
  ['tesseract_ocr', undefined, 'tesseract_ocr (Debian)'],
];

export async function ocrSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  const sans = renderedText('sans', 28);
  const inputs: Array<[string, Buffer, string]> = [
    ['rendered text, 28 px sans', sans, OCR_LINES.join('\n')],
    ['rendered text, 16 px serif', renderedText('serif', 16), OCR_LINES.join('\n')],
    ['photocopy-like page (rotated, blurred, noisy, JPEG)', await degraded(renderedText('serif', 20)), OCR_LINES.join('\n')],
  ];
  const page = samplePath('page.png');
  if (page) inputs.push(['scanned book page (skimage page.png)', fs.readFileSync(page), PAGE_REFERENCE]);
  const rows: QualityRow[] = [];
  const scores = new Map<string, number[]>();
  for (const [label, bytes, reference] of inputs) {
    const per: Array<[string, number]> = [];
    for (const [nodeType, sub, name] of OCR_MODELS) {
      if (!m.available(nodeType, sub)) continue;
      const { out } = await m.run(nodeType, sub, { image_url: dataUrl(bytes, label.includes('JPEG') ? 'image/jpeg' : 'image/png') });
      const c = cer(textOf(out), reference);
      per.push([name, c]);
      (scores.get(name) ?? scores.set(name, []).get(name)!).push(c);
      log(`   OCR ${name} on ${label}: CER ${(c * 100).toFixed(1)} %`);
    }
    const base = per.find(([n]) => n === 'tesseract_ocr (Debian)');
    for (const [name, c] of per) {
      rows.push({ section: 'OCR', model: name, metric: `CER, ${label}`, figure: c * 100, unit: '%', better: 'lower', n: 1, ...(base && name !== base[0] ? { baseline: base[1] * 100, baselineLabel: 'Debian tesseract CLI' } : {}) });
    }
  }
  return rows;
}

// ---------------------------------------------------------------- speech to text over each voice

/** Sentences written for this benchmark: everyday words, a number, a name. */
const SENTENCES = [
  'The train to the city leaves at seven in the morning.',
  'Please send the report to my office before lunch.',
  'We planted three apple trees behind the old house.',
  'Turn left at the bridge and follow the river north.',
  'Her brother bought a new blue bicycle last week.',
];

const VOICES: Array<[string, Record<string, unknown>, string]> = [
  ['flite_tts', { voice: 'slt' }, 'flite slt'],
  ['flite_tts', { voice: 'awb' }, 'flite awb'],
  ['flite_tts', { voice: 'rms' }, 'flite rms'],
  ['flite_tts', { voice: 'kal' }, 'flite kal'],
  ['festival_tts', {}, 'festival (HTS slt)'],
  ['espeak_tts', { voice: 'en-us' }, 'espeak en-us'],
  ['espeak_tts', { voice: 'en-gb' }, 'espeak en-gb'],
];

export async function speechSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  if (!m.available('transcribe_audio')) return [];
  const results: Array<[string, number]> = [];
  for (const [nodeType, extra, label] of VOICES) {
    if (!m.available(nodeType)) continue;
    const w: number[] = [];
    for (const s of SENTENCES) {
      let out;
      try {
        out = (await m.run(nodeType, undefined, { text: s, ...extra })).out;
      } catch (err) {
        log(`   TTS ${label} failed: ${(err as Error).message}`);
        break;
      }
      const wav = fileOf(out);
      const heard = textOf((await m.run('transcribe_audio', undefined, { audio_url: dataUrl(wav.data, wav.contentType) })).out);
      w.push(wer(heard, s));
    }
    if (w.length === SENTENCES.length) {
      results.push([label, mean(w)]);
      log(`   STT pocketsphinx on ${label}: WER ${(mean(w) * 100).toFixed(1)} %`);
    }
  }
  const base = results.find(([l]) => l === 'flite slt');
  return results.map(([label, w]) => ({
    section: 'Speech', model: `transcribe_audio ← ${label}`, metric: `WER, ${SENTENCES.length} sentences spoken by ${label}`, figure: w * 100, unit: '%', better: 'lower', n: SENTENCES.length,
    ...(base && label !== base[0] ? { baseline: base[1] * 100, baselineLabel: 'same sentences by flite slt' } : {}),
  }));
}

// ---------------------------------------------------------------- detection and captions

/** Labelled sample photos: the COCO classes a person sees in each (image-level labels). */
const DETECTION_SET: Array<[string, string[]]> = [
  ['astronaut.png', ['person']],
  ['camera.png', ['person']],
  ['grace_hopper.jpg', ['person', 'tie']],
  ['chelsea.png', ['cat']],
  ['coffee.png', ['cup']],
  ['motorcycle_left.png', ['motorcycle']],
  ['horse.png', ['horse']],
  ['rocket.jpg', []],
];

async function rgbPng(file: string): Promise<Buffer> {
  return sharp(file).removeAlpha().toColourspace('srgb').png().toBuffer();
}

export async function detectionSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  if (!m.available('detect_objects')) return [];
  const items: Array<{ predicted: Set<string>; expected: Set<string> }> = [];
  const prior: Array<{ predicted: Set<string>; expected: Set<string> }> = [];
  const captions: Array<{ ok: boolean; priorOk: boolean }> = [];
  for (const [name, labels] of DETECTION_SET) {
    const file = samplePath(name);
    if (!file) continue;
    const url = dataUrl(await rgbPng(file), 'image/png');
    const { out } = await m.run('detect_objects', undefined, { image_url: url });
    const found = JSON.parse(textOf(out)) as { objects: Array<{ label: string; score: number }> };
    const predicted = new Set(found.objects.map((o) => o.label));
    items.push({ predicted, expected: new Set(labels) });
    prior.push({ predicted: new Set(['person']), expected: new Set(labels) });
    log(`   detect_objects ${name}: ${[...predicted].join(', ') || '(nothing)'} — labelled ${labels.join(', ') || '(no COCO object)'}`);
    if (m.available('describe_image')) {
      const sentence = textOf((await m.run('describe_image', undefined, { image_url: url })).out).toLowerCase();
      const main = labels[0];
      const ok = main ? sentence.includes(main) || (main === 'person' && /(person|people|man|woman|face)/.test(sentence)) : !/\b(dog|cat|clock|person|car|toilet)\b/.test(sentence);
      captions.push({ ok, priorOk: main === 'person' });
      log(`   describe_image ${name}: "${sentence}" — ${ok ? 'names' : 'misses'} the subject`);
    }
  }
  const pr = precisionRecall(items);
  const base = precisionRecall(prior);
  const rows: QualityRow[] = [
    { section: 'Detection', model: 'detect_objects', metric: 'precision (image-level labels, min_score 0.3)', figure: pr.precision * 100, unit: '%', baseline: base.precision * 100, baselineLabel: 'always answer "person"', better: 'higher', n: items.length, note: `${pr.tp} right, ${pr.fp} wrong labels` },
    { section: 'Detection', model: 'detect_objects', metric: 'recall (image-level labels, min_score 0.3)', figure: pr.recall * 100, unit: '%', baseline: base.recall * 100, baselineLabel: 'always answer "person"', better: 'higher', n: items.length, note: `${pr.fn} labelled objects missed` },
  ];
  if (captions.length) {
    rows.push({ section: 'Detection', model: 'describe_image', metric: 'sentence names the main subject', figure: (captions.filter((c) => c.ok).length / captions.length) * 100, unit: '%', baseline: (captions.filter((c) => c.priorOk).length / captions.length) * 100, baselineLabel: 'always say "a person"', better: 'higher', n: captions.length });
  }
  return rows;
}

// ---------------------------------------------------------------- faces

/** Labelled portraits: gender as publicly known; ages approximate, from the portraits' dates. */
const FACE_SET: Array<[string, string, number | null]> = [
  ['grace_hopper.jpg', 'female', 78],
  ['astronaut.png', 'female', 36],
  ['camera.png', 'male', null],
];
const NO_FACE_SET = ['chelsea.png', 'coffee.png', 'rocket.jpg', 'motorcycle_left.png', 'horse.png'];

export async function faceSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  if (!m.available('analyze_faces')) return [];
  let right = 0;
  let total = 0;
  const ageErr: number[] = [];
  const ageBase: number[] = [];
  let found = 0;
  for (const [name, gender, age] of FACE_SET) {
    const file = samplePath(name);
    if (!file) continue;
    const r = JSON.parse(textOf((await m.run('analyze_faces', undefined, { image_url: dataUrl(await rgbPng(file), 'image/png') })).out)) as { faces: Array<{ gender: string | null; genderScore: number | null; age: number | null }> };
    const f = r.faces[0];
    total++;
    if (f) found++;
    if (f?.gender === gender) right++;
    if (f && age !== null && f.age !== null) {
      ageErr.push(Math.abs(f.age - age));
      ageBase.push(Math.abs(40 - age));
    }
    log(`   analyze_faces ${name}: ${f ? `${f.gender} ${f.genderScore}, age ${f.age}` : 'no face'} — labelled ${gender}${age ? `, ~${age}` : ''}`);
  }
  let falseFaces = 0;
  let noFaceImages = 0;
  for (const name of NO_FACE_SET) {
    const file = samplePath(name);
    if (!file) continue;
    noFaceImages++;
    const r = JSON.parse(textOf((await m.run('analyze_faces', undefined, { image_url: dataUrl(await rgbPng(file), 'image/png') })).out)) as { count: number };
    falseFaces += r.count;
    if (r.count) log(`   analyze_faces ${name}: ${r.count} face(s) on a picture with none`);
  }
  const rows: QualityRow[] = [];
  if (total) {
    rows.push({ section: 'Faces', model: 'analyze_faces', metric: 'faces found on labelled portraits', figure: (found / total) * 100, unit: '%', better: 'higher', n: total });
    rows.push({ section: 'Faces', model: 'analyze_faces', metric: 'gender estimate right', figure: (right / total) * 100, unit: '%', baseline: 50, baselineLabel: 'coin toss', better: 'higher', n: total });
  }
  if (ageErr.length) rows.push({ section: 'Faces', model: 'analyze_faces', metric: 'age error (mean absolute)', figure: mean(ageErr), unit: 'years', baseline: mean(ageBase), baselineLabel: 'always guess 40', better: 'lower', n: ageErr.length });
  if (noFaceImages) rows.push({ section: 'Faces', model: 'analyze_faces', metric: `faces reported on ${noFaceImages} pictures with no face`, figure: falseFaces, unit: 'faces', baseline: 0, baselineLabel: 'none', better: 'lower', n: noFaceImages });
  return rows;
}

// ---------------------------------------------------------------- upscaling

/** Held-out photos (centre crops, so ESRGAN runs in seconds) and text; none was used to pick settings. */
const UPSCALE_PHOTOS = ['astronaut.png', 'chelsea.png', 'coffee.png', 'camera.png', 'grace_hopper.jpg', 'motorcycle_left.png', 'rocket.jpg', 'retina.jpg'];

async function crops(): Promise<Array<{ name: string; kind: 'photo' | 'text'; rgb: Buffer; w: number; h: number }>> {
  const out: Array<{ name: string; kind: 'photo' | 'text'; rgb: Buffer; w: number; h: number }> = [];
  const S = 192;
  for (const name of UPSCALE_PHOTOS) {
    const file = samplePath(name);
    if (!file) continue;
    const meta = await sharp(file).metadata();
    const left = Math.max(0, Math.floor((meta.width! - S) / 2));
    const top = Math.max(0, Math.floor((meta.height! - S) / 2));
    const { data } = await sharp(file).removeAlpha().toColourspace('srgb').extract({ left, top, width: S, height: S }).raw().toBuffer({ resolveWithObject: true });
    out.push({ name, kind: 'photo', rgb: data, w: S, h: S });
  }
  for (const [name, png] of [['rendered text 28 px', renderedText('sans', 28)], ['rendered text 16 px', renderedText('serif', 16)]] as const) {
    const meta = await sharp(png).metadata();
    // Whole lines of text, cut to a multiple of 12 pixels so ×2, ×3 and ×4 shrink exactly.
    const w = Math.floor(Math.min(meta.width!, 384) / 12) * 12;
    const h = Math.floor(Math.min(meta.height!, S) / 12) * 12;
    const { data } = await sharp(png).removeAlpha().extract({ left: 0, top: 0, width: w, height: h }).raw().toBuffer({ resolveWithObject: true });
    out.push({ name, kind: 'text', rgb: data, w, h });
  }
  return out;
}

const raw = (rgb: Buffer, w: number, h: number) => sharp(rgb, { raw: { width: w, height: h, channels: 3 } });

export async function upscaleSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  const set = await crops();
  const rows: QualityRow[] = [];
  for (const scale of [2, 3, 4]) {
    // figure[method][kind] = per-image PSNR / SSIM
    const acc = new Map<string, { psnr: number[]; ssim: number[]; ms: number[]; kind: string }>();
    const add = (method: string, kind: string, p: number, s: number, ms: number) => {
      const k = `${method}|${kind}`;
      const a = acc.get(k) ?? { psnr: [], ssim: [], ms: [], kind };
      a.psnr.push(p);
      a.ssim.push(s);
      a.ms.push(ms);
      acc.set(k, a);
    };
    for (const img of set) {
      const lw = img.w / scale;
      const lh = img.h / scale;
      // The usual super-resolution protocol: the original, shrunk with bicubic, is the input; the original is the reference.
      const low = await raw(img.rgb, img.w, img.h).resize(lw, lh, { kernel: 'cubic' }).png().toBuffer();
      for (const kernel of ['cubic', 'lanczos3'] as const) {
        const t0 = performance.now();
        const up = await sharp(low).resize(img.w, img.h, { kernel }).removeAlpha().raw().toBuffer();
        add(kernel === 'cubic' ? 'bicubic (sharp)' : 'lanczos3 (sharp)', img.kind, psnr(up, img.rgb), meanSsim(up, img.rgb, img.w, img.h), performance.now() - t0);
      }
      for (const sub of ['esrgan-upscale-slim', 'esrgan-upscale-medium']) {
        if (!m.available('esrgan_upscale', sub)) continue;
        const { out, ms } = await m.run('esrgan_upscale', sub, { image_url: dataUrl(low, 'image/png'), scale });
        const up = await sharp(fileOf(out).data).removeAlpha().raw().toBuffer();
        add(sub.replace('esrgan-upscale-', 'ESRGAN '), img.kind, psnr(up, img.rgb), meanSsim(up, img.rgb, img.w, img.h), ms);
      }
    }
    for (const kind of ['photo', 'text']) {
      const base = acc.get(`bicubic (sharp)|${kind}`);
      if (!base) continue;
      for (const [k, a] of acc) {
        const [method] = k.split('|');
        if (a.kind !== kind || method === 'bicubic (sharp)') continue;
        const n = a.psnr.length;
        const wins = a.psnr.filter((p, i) => p > base.psnr[i]!).length;
        log(`   upscale ×${scale} ${kind}s, ${method}: PSNR ${mean(a.psnr).toFixed(2)} dB vs bicubic ${mean(base.psnr).toFixed(2)}; SSIM ${mean(a.ssim).toFixed(4)} vs ${mean(base.ssim).toFixed(4)}; beats bicubic on ${wins}/${n}; ${Math.round(mean(a.ms))} ms`);
        rows.push({ section: 'Upscaling', model: method!, metric: `×${scale} PSNR on ${n} held-out ${kind === 'photo' ? 'photos' : 'text images'}`, figure: mean(a.psnr), unit: 'dB', baseline: mean(base.psnr), baselineLabel: 'bicubic', better: 'higher', n, note: `beats bicubic on ${wins} of ${n}; mean ${Math.round(mean(a.ms))} ms an image` });
        rows.push({ section: 'Upscaling', model: method!, metric: `×${scale} SSIM on ${n} held-out ${kind === 'photo' ? 'photos' : 'text images'}`, figure: mean(a.ssim), unit: '', baseline: mean(base.ssim), baselineLabel: 'bicubic', better: 'higher', n });
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------- background removal

/**
 * Scenes with an exact reference mask, made here: a foreground photo cut out through a known shape
 * (scikit-image's horse silhouette, an ellipse around the astronaut's head and shoulders) and pasted on
 * a texture. The baseline is the classic trick of keeping pixels unlike the border colour.
 */
/** 8-bit RGB pixels of a pipeline (grey pictures become three equal channels). */
async function rgbOf(img: sharp.Sharp): Promise<Buffer> {
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels === 3) return data;
  const out = Buffer.alloc(info.width * info.height * 3);
  for (let p = 0; p < info.width * info.height; p++) out[p * 3] = out[p * 3 + 1] = out[p * 3 + 2] = data[p * info.channels]!;
  return out;
}

/** The foreground where the mask is set, the background elsewhere: a scene whose true mask is exactly `mask`. */
function pasteThrough(fg: Buffer, mask: Buffer, bg: Buffer, w: number, h: number): Promise<Buffer> {
  const out = Buffer.alloc(w * h * 3);
  for (let p = 0; p < w * h; p++) for (let c = 0; c < 3; c++) out[p * 3 + c] = mask[p]! > 127 ? fg[p * 3 + c]! : bg[p * 3 + c]!;
  return sharp(out, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

async function scenes(): Promise<Array<{ name: string; png: Buffer; mask: Buffer; w: number; h: number }>> {
  const out: Array<{ name: string; png: Buffer; mask: Buffer; w: number; h: number }> = [];
  const horse = samplePath('horse.png');
  const W = 400;
  const H = 328;
  const bg = (name: string) => samplePath(name);
  if (horse) {
    // horse.png: black horse on white; the mask is the black part.
    const mask = await sharp(horse).resize(W, H, { fit: 'fill' }).removeAlpha().greyscale().negate({ alpha: false }).threshold(128).extractChannel(0).raw().toBuffer();
    for (const [fg, back] of [['chelsea.png', 'grass.png'], ['coffee.png', 'brick.png']] as const) {
      const f = samplePath(fg);
      const b = bg(back);
      if (!f || !b) continue;
      const png = await pasteThrough(await rgbOf(sharp(f).resize(W, H, { fit: 'cover' })), mask, await rgbOf(sharp(b).resize(W, H, { fit: 'cover' })), W, H);
      out.push({ name: `${fg.replace('.png', '')} in a horse shape on ${back.replace('.png', '')}`, png, mask, w: W, h: H });
    }
  }
  const astro = samplePath('astronaut.png');
  const gravel = bg('gravel.png');
  if (astro && gravel) {
    const c = createCanvas(W, H);
    const g = c.getContext('2d');
    g.fillStyle = '#000';
    g.fillRect(0, 0, W, H);
    g.fillStyle = '#fff';
    g.beginPath();
    g.ellipse(W / 2, H * 0.62, W * 0.3, H * 0.45, 0, 0, Math.PI * 2);
    g.fill();
    const mask = await sharp(c.toBuffer('image/png')).removeAlpha().greyscale().threshold(128).extractChannel(0).raw().toBuffer();
    const png = await pasteThrough(await rgbOf(sharp(astro).extract({ left: 100, top: 0, width: 320, height: 262 }).resize(W, H)), mask, await rgbOf(sharp(gravel).resize(W, H, { fit: 'cover' })), W, H);
    // The ellipse also holds the portrait's own studio backdrop, which a subject cut-out rightly drops:
    // this scene's IoU understates the model (the silhouette scenes are exact).
    out.push({ name: 'astronaut portrait (ellipse, includes its backdrop: IoU understates) on gravel', png, mask, w: W, h: H });
  }
  return out;
}

async function borderBaseline(png: Buffer, w: number, h: number): Promise<Buffer> {
  const rgb = await sharp(png).removeAlpha().raw().toBuffer();
  let r = 0; let g = 0; let b = 0; let n = 0;
  for (let x = 0; x < w; x++) for (const y of [0, h - 1]) { const i = (y * w + x) * 3; r += rgb[i]!; g += rgb[i + 1]!; b += rgb[i + 2]!; n++; }
  for (let y = 0; y < h; y++) for (const x of [0, w - 1]) { const i = (y * w + x) * 3; r += rgb[i]!; g += rgb[i + 1]!; b += rgb[i + 2]!; n++; }
  r /= n; g /= n; b /= n;
  const d = new Float64Array(w * h);
  for (let p = 0; p < w * h; p++) d[p] = Math.hypot(rgb[p * 3]! - r, rgb[p * 3 + 1]! - g, rgb[p * 3 + 2]! - b);
  const t = mean([...d]);
  const out = Buffer.alloc(w * h);
  for (let p = 0; p < w * h; p++) out[p] = d[p]! > t ? 255 : 0;
  return out;
}

export async function backgroundSection(m: ModelRunner, log: Log): Promise<QualityRow[]> {
  if (!m.available('remove_background')) return [];
  const set = await scenes();
  const model: number[] = [];
  const base: number[] = [];
  for (const s of set) {
    const { out, ms } = await m.run('remove_background', undefined, { image_url: dataUrl(s.png, 'image/png') });
    const alpha = await sharp(fileOf(out).data).ensureAlpha().extractChannel(3).resize(s.w, s.h, { fit: 'fill' }).raw().toBuffer();
    const a = iou(alpha, s.mask);
    const b = iou(await borderBaseline(s.png, s.w, s.h), s.mask);
    model.push(a);
    base.push(b);
    log(`   remove_background ${s.name}: IoU ${a.toFixed(3)} (border-colour baseline ${b.toFixed(3)}), ${Math.round(ms)} ms`);
  }
  if (!set.length) return [];
  for (const s of set) if (s.mask.length !== s.w * s.h) throw new Error(`reference mask of ${s.name} is not one byte a pixel`);
  return [{ section: 'Background removal', model: 'remove_background', metric: `mask IoU on ${set.length} composited scenes with exact masks`, figure: mean(model), unit: '', baseline: mean(base), baselineLabel: 'border-colour threshold', better: 'higher', n: set.length, note: set.map((s, i) => `${s.name}: ${model[i]!.toFixed(3)}`).join('; ') }];
}
