import type { ScaleName } from './theory.js';

/**
 * What each mood means to the composer: scale, tempo range, chord progressions (scale degrees, 0 = tonic),
 * General MIDI instruments and the accompaniment style. The choices are ordinary film/game-music clichés.
 */
export type ChordStyle = 'sustain' | 'arpeggio' | 'stabs' | 'pulse';
export type BassStyle = 'whole' | 'rootFifth' | 'octaves' | 'walking';
export type DrumStyle = 'none' | 'pop' | 'soft' | 'epic' | 'shuffle' | 'sparse';

export interface MoodProfile {
  scale: ScaleName;
  tempo: [number, number];
  progressions: number[][];
  /** Seventh chords instead of triads. */
  sevenths: boolean;
  lead: number;
  chords: number;
  /** A second, sustained layer under `chords` (GM program), if any. */
  pad?: number;
  bass: number;
  chordStyle: ChordStyle;
  bassStyle: BassStyle;
  drums: DrumStyle;
  /** 0..1: how many melody slots hold a note. */
  density: number;
  /** Melody register (octave of the tonic). */
  leadOctave: number;
  velocity: number;
}

export const MOODS: Record<string, MoodProfile> = {
  happy: {
    scale: 'major', tempo: [108, 132], sevenths: false,
    progressions: [[0, 4, 5, 3], [0, 3, 4, 3], [0, 5, 3, 4], [3, 4, 0, 5]],
    lead: 0, chords: 24, bass: 33, chordStyle: 'stabs', bassStyle: 'rootFifth', drums: 'pop', density: 0.7, leadOctave: 5, velocity: 0.8,
  },
  calm: {
    scale: 'major', tempo: [66, 84], sevenths: true,
    progressions: [[0, 3, 0, 4], [0, 5, 3, 4], [0, 2, 3, 3], [3, 0, 3, 4]],
    lead: 73, chords: 46, pad: 89, bass: 32, chordStyle: 'arpeggio', bassStyle: 'whole', drums: 'none', density: 0.45, leadOctave: 5, velocity: 0.6,
  },
  sad: {
    scale: 'minor', tempo: [60, 76], sevenths: false,
    progressions: [[0, 5, 2, 6], [0, 3, 6, 2], [0, 5, 3, 4], [5, 6, 0, 0]],
    lead: 42, chords: 0, pad: 49, bass: 32, chordStyle: 'arpeggio', bassStyle: 'whole', drums: 'none', density: 0.45, leadOctave: 4, velocity: 0.6,
  },
  epic: {
    scale: 'minor', tempo: [84, 104], sevenths: false,
    progressions: [[0, 5, 2, 6], [0, 6, 5, 6], [5, 6, 0, 0], [0, 3, 5, 4]],
    lead: 60, chords: 48, pad: 52, bass: 43, chordStyle: 'pulse', bassStyle: 'octaves', drums: 'epic', density: 0.55, leadOctave: 4, velocity: 0.9,
  },
  mysterious: {
    scale: 'harmonicMinor', tempo: [70, 90], sevenths: true,
    progressions: [[0, 5, 0, 4], [0, 3, 5, 4], [0, 6, 5, 4], [3, 0, 5, 4]],
    lead: 8, chords: 11, pad: 95, bass: 35, chordStyle: 'arpeggio', bassStyle: 'whole', drums: 'sparse', density: 0.4, leadOctave: 5, velocity: 0.65,
  },
  playful: {
    scale: 'major', tempo: [112, 140], sevenths: false,
    progressions: [[0, 5, 1, 4], [0, 3, 4, 0], [0, 1, 4, 0], [0, 5, 3, 4]],
    lead: 12, chords: 45, bass: 58, chordStyle: 'stabs', bassStyle: 'walking', drums: 'shuffle', density: 0.75, leadOctave: 5, velocity: 0.75,
  },
};

export const MOOD_NAMES = Object.keys(MOODS);
