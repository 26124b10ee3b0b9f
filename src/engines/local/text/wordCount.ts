import type { Engine } from '../../types.js';
import { segments } from './segments.js';
import { asText, textOutput } from './values.js';

/** Average silent reading speed of adults in English, words per minute (Brysbaert, 2019). */
const READING_WPM = 238;

export interface TextStats {
  words: number;
  characters: number;
  charactersNoSpaces: number;
  sentences: number;
  paragraphs: number;
  lines: number;
  readingTimeSeconds: number;
}

/** Counts by Unicode rules (Intl.Segmenter): characters are graphemes, words are word-like segments. */
export function textStats(text: string): TextStats {
  const seg = (granularity: 'grapheme' | 'word' | 'sentence') => segments(text, granularity);
  let characters = 0;
  let charactersNoSpaces = 0;
  for (const g of seg('grapheme')) {
    characters++;
    if (!/^\s+$/u.test(g.segment)) charactersNoSpaces++;
  }
  let words = 0;
  for (const w of seg('word')) if (w.isWordLike) words++;
  let sentences = 0;
  for (const s of seg('sentence')) if (s.segment.trim()) sentences++;
  const paragraphs = text.split(/\r?\n[ \t]*\r?\n/).filter((p) => p.trim()).length;
  const lines = text === '' ? 0 : text.split(/\r?\n/).length;
  return { words, characters, charactersNoSpaces, sentences, paragraphs, lines, readingTimeSeconds: Math.round((words / READING_WPM) * 60) };
}

export const wordCountEngine: Engine = {
  id: 'word-count',
  requirements: [],
  async availability() {
    return { available: true };
  },
  async execute(req) {
    const s = textStats(asText(req.input.text));
    const n = (value: number) => ({ kind: 'number' as const, value });
    return {
      output: textOutput(`${s.words} words, ${s.characters} characters, ${s.sentences} sentences, ${s.paragraphs} paragraphs`),
      words: n(s.words),
      characters: n(s.characters),
      characters_no_spaces: n(s.charactersNoSpaces),
      sentences: n(s.sentences),
      paragraphs: n(s.paragraphs),
      lines: n(s.lines),
      reading_time_seconds: n(s.readingTimeSeconds),
    };
  },
};
