/** Pitch arithmetic for the composer: keys, scales as semitone steps, diatonic chords by stacking thirds. */

export const KEYS = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'] as const;
export type KeyName = (typeof KEYS)[number];

export const SCALES = {
  major: [0, 2, 4, 5, 7, 9, 11],
  minor: [0, 2, 3, 5, 7, 8, 10],
  harmonicMinor: [0, 2, 3, 5, 7, 8, 11],
  dorian: [0, 2, 3, 5, 7, 9, 10],
  lydian: [0, 2, 4, 6, 7, 9, 11],
} as const;
export type ScaleName = keyof typeof SCALES;

export class Scale {
  readonly steps: readonly number[];
  /** MIDI pitch class of the tonic, 0 = C. */
  readonly tonic: number;

  constructor(key: KeyName, name: ScaleName) {
    this.tonic = KEYS.indexOf(key);
    this.steps = SCALES[name];
  }

  /** MIDI note of a scale degree (0-based, may be negative or beyond 6) in the octave of `baseOctave`. */
  note(degree: number, baseOctave: number): number {
    const n = this.steps.length;
    const octave = Math.floor(degree / n);
    const step = this.steps[((degree % n) + n) % n]!;
    return 12 * (baseOctave + 1 + octave) + this.tonic + step;
  }

  /** The chord on a degree: triad (3 notes) or seventh (4), as degrees relative to the scale. */
  chordDegrees(root: number, size: 3 | 4): number[] {
    return Array.from({ length: size }, (_, i) => root + 2 * i);
  }
}

/**
 * Voices a chord near the previous voicing (smallest total movement), within a register — so chord
 * changes sound connected instead of jumping in parallel root positions.
 */
export function voiceLead(pitchClasses: number[], previous: number[] | undefined, low: number, high: number): number[] {
  const candidates: number[][] = [];
  const n = pitchClasses.length;
  for (let inversion = 0; inversion < n; inversion++) {
    for (let base = low; base <= high; base++) {
      if (base % 12 !== pitchClasses[inversion]) continue;
      const voicing = [base];
      for (let i = 1; i < n; i++) {
        const pc = pitchClasses[(inversion + i) % n]!;
        let p = voicing[i - 1]! + 1;
        while (p % 12 !== pc) p++;
        voicing.push(p);
      }
      if (voicing[n - 1]! <= high + 4) candidates.push(voicing);
    }
  }
  if (candidates.length === 0) {
    // Cannot happen for the registers compose.ts uses (an octave or more wide); root position as a fallback.
    return pitchClasses.map((pc, i) => low + ((pc - low) % 12 + 12) % 12 + (i > 0 && pc < pitchClasses[0]! ? 12 : 0));
  }
  if (!previous) return candidates.sort((a, b) => Math.abs(a[0]! - (low + high) / 2) - Math.abs(b[0]! - (low + high) / 2))[0]!;
  const cost = (v: number[]) => v.reduce((s, p, i) => s + Math.abs(p - (previous[Math.min(i, previous.length - 1)] ?? p)), 0);
  return candidates.sort((a, b) => cost(a) - cost(b))[0]!;
}
