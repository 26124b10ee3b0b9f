import sharp from 'sharp';
import { canvasToPng, imageToCanvas } from '../common/canvasImage.js';
import { registerFonts } from '../common/fonts.js';
import { annotationScale, BOX_COLORS, drawBox } from './annotate.js';
import { detectRgb, type Box, type HumanFace, type Point } from './human.js';

/** Detection runs on at most this many pixels a side; coordinates are reported in the input's pixels. */
const WORK_SIDE = 1600;

export interface Rect { x: number; y: number; width: number; height: number }
export interface DetectedObject { label: string; score: number; box: Rect }
export interface FaceAnalysis {
  score: number;
  box: Rect;
  age: number | null;
  gender: string | null;
  genderScore: number | null;
  emotions: Array<{ emotion: string; score: number }>;
  /** Head pose in degrees. */
  rotation: { yaw: number; pitch: number; roll: number } | null;
  landmarks: Record<'leftEye' | 'rightEye' | 'nose' | 'mouth', [number, number]>;
}

/**
 * The least detector confidence (BlazeFace box score) at which a face counts. Measured on the sample
 * photos (bench/models.ts): real portraits score 0.74–0.90, while the false face BlazeFace finds on
 * scikit-image's rocket scores 0.34 (its mesh score, 0.81, says nothing). Face-based models ignore
 * weaker faces: analyze_faces does not report them, mouth_animation refuses the picture.
 */
export const MIN_FACE_BOX_SCORE = 0.5;

/** Faces the detector is sure enough of (see MIN_FACE_BOX_SCORE). */
export function clearFaces(faces: HumanFace[]): HumanFace[] {
  return faces.filter((f) => (f.boxScore ?? f.score) >= MIN_FACE_BOX_SCORE);
}

interface Working { rgb: Buffer; width: number; height: number; factor: number }

async function working(bytes: Uint8Array): Promise<Working> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes)
    .resize({ width: WORK_SIDE, height: WORK_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: data, width: info.width, height: info.height, factor: (meta.width ?? info.width) / info.width };
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const rect = (b: Box, f: number): Rect => ({ x: Math.round(b[0] * f), y: Math.round(b[1] * f), width: Math.round(b[2] * f), height: Math.round(b[3] * f) });
const deg = (rad: number) => Math.round((rad * 180) / Math.PI);

function centroid(points: Point[] | undefined, f: number): [number, number] {
  if (!points?.length) return [0, 0];
  const x = points.reduce((s, p) => s + p[0], 0) / points.length;
  const y = points.reduce((s, p) => s + p[1], 0) / points.length;
  return [Math.round(x * f), Math.round(y * f)];
}

export async function detectObjects(bytes: Uint8Array, minScore: number, maxObjects: number): Promise<{ objects: DetectedObject[]; annotated: Uint8Array }> {
  registerFonts();
  const w = await working(bytes);
  const res = await detectRgb(w.rgb, w.width, w.height, {
    face: { enabled: false },
    object: { enabled: true, minConfidence: minScore, maxDetected: maxObjects },
  });
  const kept = res.object
    .filter((o) => o.score >= minScore)
    .sort((a, b) => b.score - a.score)
    .slice(0, maxObjects);
  const objects = kept.map((o) => ({ label: o.label, score: Math.round(o.score * 1000) / 1000, box: rect(o.box, w.factor) }));
  // The annotated copy is drawn at the working size, so boxes use the unscaled coordinates.
  const canvas = await imageToCanvas(bytes, WORK_SIDE);
  const g = canvas.getContext('2d');
  const s = annotationScale(canvas.width, canvas.height);
  kept.forEach((o, i) => drawBox(g, rect(o.box, 1), `${o.label} ${Math.round(o.score * 100)}%`, BOX_COLORS[i % BOX_COLORS.length]!, s));
  return { objects, annotated: await canvasToPng(canvas) };
}

function analyse(f: HumanFace, factor: number): FaceAnalysis {
  const a = f.annotations;
  const angle = f.rotation?.angle;
  return {
    score: Math.round(f.score * 1000) / 1000,
    box: rect(f.box, factor),
    age: typeof f.age === 'number' ? round1(f.age) : null,
    gender: f.gender && f.gender !== 'unknown' ? f.gender : null,
    genderScore: typeof f.genderScore === 'number' ? Math.round(f.genderScore * 100) / 100 : null,
    emotions: (f.emotion ?? []).map((e) => ({ emotion: e.emotion, score: Math.round(e.score * 100) / 100 })),
    rotation: angle ? { yaw: deg(angle.yaw), pitch: deg(angle.pitch), roll: deg(angle.roll) } : null,
    landmarks: {
      // Human names eyes from the subject's point of view; keep its naming.
      leftEye: centroid(a.leftEyeLower0 ?? a.leftEyeUpper0, factor),
      rightEye: centroid(a.rightEyeLower0 ?? a.rightEyeUpper0, factor),
      nose: centroid(a.noseTip, factor),
      mouth: centroid([...(a.lipsUpperInner ?? []), ...(a.lipsLowerInner ?? [])], factor),
    },
  };
}

export async function analyzeFaces(bytes: Uint8Array, maxFaces: number): Promise<{ faces: FaceAnalysis[]; annotated: Uint8Array }> {
  registerFonts();
  const w = await working(bytes);
  const res = await detectRgb(w.rgb, w.width, w.height, {
    object: { enabled: false },
    face: { enabled: true, detector: { maxDetected: maxFaces }, mesh: { enabled: true }, description: { enabled: true }, emotion: { enabled: true } },
  });
  const found = clearFaces(res.face).sort((a, b) => b.score - a.score).slice(0, maxFaces);
  const faces = found.map((f) => analyse(f, w.factor));
  const canvas = await imageToCanvas(bytes, WORK_SIDE);
  const g = canvas.getContext('2d');
  const s = annotationScale(canvas.width, canvas.height);
  found.forEach((f, i) => {
    const color = BOX_COLORS[i % BOX_COLORS.length]!;
    g.fillStyle = color;
    for (const p of f.mesh) g.fillRect(p[0] - s / 2, p[1] - s / 2, s, s);
    const fa = faces[i]!;
    const top = fa.emotions[0]?.emotion;
    const label = [fa.age !== null ? `~${Math.round(fa.age)}y` : '', fa.gender ?? '', top ?? ''].filter(Boolean).join(' · ') || 'face';
    drawBox(g, rect(f.box, 1), label, color, s);
  });
  return { faces, annotated: await canvasToPng(canvas) };
}

export interface FaceLandmarks {
  width: number;
  height: number;
  box: Rect;
  /** Outer and inner lip contours and the face silhouette, in input pixels (x, y). */
  lipsUpperOuter: Array<[number, number]>;
  lipsLowerOuter: Array<[number, number]>;
  lipsUpperInner: Array<[number, number]>;
  lipsLowerInner: Array<[number, number]>;
  silhouette: Array<[number, number]>;
}

/** The largest face's mouth and jaw contours (for mouth animation); null when there is no face. */
export async function faceLandmarks(bytes: Uint8Array): Promise<FaceLandmarks | null> {
  const w = await working(bytes);
  const res = await detectRgb(w.rgb, w.width, w.height, {
    object: { enabled: false },
    face: { enabled: true, detector: { maxDetected: 3 }, mesh: { enabled: true }, description: { enabled: false }, emotion: { enabled: false } },
  });
  const face = clearFaces(res.face).sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
  if (!face || !face.annotations.lipsUpperOuter?.length) return null;
  const pts = (name: string) => (face.annotations[name] ?? []).map((p) => [p[0] * w.factor, p[1] * w.factor] as [number, number]);
  return {
    width: Math.round(w.width * w.factor),
    height: Math.round(w.height * w.factor),
    box: rect(face.box, w.factor),
    lipsUpperOuter: pts('lipsUpperOuter'),
    lipsLowerOuter: pts('lipsLowerOuter'),
    lipsUpperInner: pts('lipsUpperInner'),
    lipsLowerInner: pts('lipsLowerInner'),
    silhouette: pts('silhouette'),
  };
}

/** Objects and faces from one detection pass, without annotation (for describe_image). */
export async function sceneSignals(bytes: Uint8Array, minScore: number): Promise<{ objects: DetectedObject[]; faces: FaceAnalysis[] }> {
  const w = await working(bytes);
  const res = await detectRgb(w.rgb, w.width, w.height, {
    object: { enabled: true, minConfidence: minScore, maxDetected: 20 },
    face: { enabled: true, detector: { maxDetected: 10 }, mesh: { enabled: true }, description: { enabled: true }, emotion: { enabled: true } },
  });
  return {
    objects: res.object.filter((o) => o.score >= minScore).map((o) => ({ label: o.label, score: Math.round(o.score * 1000) / 1000, box: rect(o.box, w.factor) })),
    faces: clearFaces(res.face).map((f) => analyse(f, w.factor)),
  };
}
