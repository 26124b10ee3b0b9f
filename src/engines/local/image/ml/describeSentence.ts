import type { PaletteColor } from '../edit/palette.work.js';
import { colorName } from './colorNames.js';
import type { OcrBox } from './ocrWords.js';
import type { DetectedObject, FaceAnalysis } from './vision.work.js';

/**
 * Builds the description of describe_image from real detections with fixed sentence templates. Pure,
 * so it is unit-tested on hand-made detections. No language model is involved.
 */
export interface SceneFacts {
  width: number;
  height: number;
  objects: DetectedObject[];
  faces: FaceAnalysis[];
  words: OcrBox[];
  colors: PaletteColor[];
}

const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const IRREGULAR: Record<string, string> = { person: 'people', mouse: 'mice', knife: 'knives', skis: 'skis', scissors: 'scissors', sheep: 'sheep' };

export function plural(noun: string, n: number): string {
  if (n === 1) return noun;
  const words = noun.split(' ');
  const last = words.pop()!;
  const p = IRREGULAR[last] ?? (/(s|sh|ch|x)$/.test(last) ? `${last}es` : `${last}s`);
  return [...words, p].join(' ');
}

export function countPhrase(noun: string, n: number): string {
  if (n === 1) return `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
  return `${NUMBERS[n] ?? String(n)} ${plural(noun, n)}`;
}

export function listPhrase(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** human's emotion labels as adjectives for "who looks …". */
const MOODS: Record<string, string> = { angry: 'angry', disgust: 'disgusted', fear: 'fearful', happy: 'happy', sad: 'sad', surprise: 'surprised', neutral: 'neutral' };

function ageWords(age: number | null): string {
  if (age === null) return 'a person';
  if (age < 13) return 'a child';
  if (age < 20) return 'a teenager';
  if (age < 35) return 'a young adult';
  if (age < 60) return 'an adult';
  return 'an older adult';
}

function orientation(w: number, h: number): string {
  const r = w / h;
  return r > 1.15 ? 'landscape' : r < 0.87 ? 'portrait' : 'square';
}

export function describeScene(f: SceneFacts, detail: 'brief' | 'detailed'): string {
  const sentences: string[] = [];
  const counts = new Map<string, number>();
  for (const o of f.objects) counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  // People are counted from faces when the face detector saw more of them than the object detector.
  if (f.faces.length > (counts.get('person') ?? 0)) counts.set('person', f.faces.length);
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shape = orientation(f.width, f.height);
  if (ordered.length) {
    sentences.push(`A ${shape} image showing ${listPhrase(ordered.slice(0, 6).map(([label, n]) => countPhrase(label, n)))}.`);
  } else {
    sentences.push(`A ${shape} image in which none of the 80 common object categories was recognised.`);
  }
  if (detail === 'detailed' && f.faces.length) {
    const described = f.faces.slice(0, 3).map((face) => {
      const mood = face.emotions[0];
      return `${ageWords(face.age)}${face.age !== null ? ` (estimated age ${Math.round(face.age)})` : ''}${mood && mood.score >= 0.3 ? ` who looks ${MOODS[mood.emotion] ?? mood.emotion}` : ''}`;
    });
    sentences.push(`${f.faces.length === 1 ? 'One face is visible' : `${countPhrase('face', f.faces.length).replace(/^./, (c) => c.toUpperCase())} are visible`}: ${listPhrase(described)}.`);
  }
  const confident = f.words.filter((w) => w.confidence >= 60 && /[\p{L}\p{N}]/u.test(w.text));
  if (confident.length) {
    let text = confident.map((w) => w.text).join(' ');
    if (text.length > 80) text = `${text.slice(0, 77).trimEnd()}…`;
    sentences.push(`Visible text reads “${text}”.`);
  }
  const names: string[] = [];
  for (const c of f.colors) {
    const name = colorName({ r: c.rgb[0], g: c.rgb[1], b: c.rgb[2] });
    if (!names.includes(name) && c.share >= 0.05) names.push(name);
  }
  if (names.length) sentences.push(`The main colours are ${listPhrase(names.slice(0, detail === 'brief' ? 2 : 4))}.`);
  return sentences.join(' ');
}
