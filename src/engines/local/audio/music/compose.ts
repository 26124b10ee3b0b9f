import ToneMidi from '@tonejs/midi';
import { pick, seededRng, weighted, type Rng } from '../../random.js';
import { MOODS, type MoodProfile } from './moods.js';
import { KEYS, Scale, voiceLead, type KeyName } from './theory.js';

const { Midi } = ToneMidi;
type Track = ReturnType<InstanceType<typeof Midi>['addTrack']>;

/**
 * Rule-based composition (no learned model): a seeded random choice among mood-typical progressions,
 * accompaniment patterns and drum grooves, plus a melody built from a two-bar motif that is repeated,
 * varied and fitted to each chord. The result is a General MIDI file; render.ts turns it into audio.
 */
export interface ComposeOptions {
  mood: string;
  key: KeyName | 'auto';
  /** Beats per minute; the mood picks one when absent. */
  tempo?: number;
  /** Seconds of music wanted; the piece ends (tonic chord) by then. */
  duration: number;
  seed: number;
}

export interface Composition {
  midi: Uint8Array;
  key: KeyName;
  mode: string;
  tempo: number;
  bars: number;
  summary: string;
}

interface MotifNote {
  /** Start in eighth notes from the motif's start (two bars = 16 slots). */
  slot: number;
  len: number;
  /** Scale steps from the motif's first note. */
  step: number;
}

const BEATS_PER_BAR = 4;

export function compose(opts: ComposeOptions): Composition {
  const mood = MOODS[opts.mood];
  if (!mood) throw new Error(`unknown mood ${opts.mood}`);
  const rng = seededRng(opts.seed, 'golden-mixed');
  const key = opts.key === 'auto' ? pick(rng, KEYS) : opts.key;
  const tempo = opts.tempo ?? Math.round(mood.tempo[0] + rng() * (mood.tempo[1] - mood.tempo[0]));
  const scale = new Scale(key, mood.scale);
  const secondsPerBeat = 60 / tempo;
  const totalBeats = Math.max(BEATS_PER_BAR, Math.floor(opts.duration / secondsPerBeat));
  const bars = Math.ceil(totalBeats / BEATS_PER_BAR);

  const harmony = planHarmony(rng, mood, bars);
  const midi = new Midi();
  midi.header.setTempo(tempo);
  midi.header.timeSignatures.push({ ticks: 0, timeSignature: [4, 4] });
  midi.header.name = `${opts.mood} in ${key}`;

  // Every note is clipped to the piece's end so nothing starts after the final chord.
  const end = totalBeats;
  const add = (track: Track, pitch: number, beat: number, beats: number, velocity: number) => {
    if (beat >= end || pitch < 0 || pitch > 127) return;
    const len = Math.min(beats, end + 2 - beat);
    const v = Math.max(0.05, Math.min(1, velocity * (0.92 + rng() * 0.16)));
    track.addNote({ midi: pitch, time: beat * secondsPerBeat, duration: len * secondsPerBeat * 0.97, velocity: v });
  };
  const newTrack = (name: string, program: number, channel: number) => {
    const t = midi.addTrack();
    t.name = name;
    t.channel = channel;
    t.instrument.number = program;
    return t;
  };

  const chordSize = mood.sevenths ? 4 : 3;
  writeChords(newTrack('chords', mood.chords, 1), mood, scale, harmony, chordSize, add, rng);
  if (mood.pad !== undefined) writePad(newTrack('pad', mood.pad, 2), mood, scale, harmony, chordSize, add);
  writeBass(newTrack('bass', mood.bass, 3), mood, scale, harmony, add);
  if (mood.drums !== 'none') writeDrums(newTrack('drums', 0, 9), mood, bars, add, rng);
  writeMelody(newTrack('melody', mood.lead, 0), mood, scale, harmony, chordSize, add, rng);

  const modeName = { major: 'major', minor: 'minor', harmonicMinor: 'harmonic minor', dorian: 'dorian', lydian: 'lydian' }[mood.scale];
  return {
    midi: midi.toArray(),
    key,
    mode: modeName,
    tempo,
    bars,
    summary: `${opts.mood} piece in ${key} ${modeName}, ${tempo} BPM, ${bars} bars of 4/4`,
  };
}

type Add = (track: Track, pitch: number, beat: number, beats: number, velocity: number) => void;

/** Chord root (scale degree) of each bar: 4-bar phrases A A B A, ending on the tonic. */
function planHarmony(rng: Rng, mood: MoodProfile, bars: number): number[] {
  const a = pick(rng, mood.progressions);
  const b = pick(rng, mood.progressions.filter((p) => p !== a));
  const form = ['A', 'A', 'B', 'A'];
  const roots = Array.from({ length: bars }, (_, bar) => (form[Math.floor(bar / 4) % 4] === 'B' ? b : a)[bar % 4]!);
  roots[bars - 1] = 0;
  return roots;
}

function writeChords(track: Track, mood: MoodProfile, scale: Scale, roots: number[], size: 3 | 4, add: Add, rng: Rng) {
  let prev: number[] | undefined;
  const arpShape = pick(rng, [[0, 1, 2, 3, 2, 1, 0, 1], [0, 2, 1, 3, 0, 2, 1, 3], [0, 1, 2, 3, 4, 3, 2, 1]]);
  const stabs = pick(rng, [[0, 1.5, 2, 3.5], [0, 1, 2, 3], [0.5, 1.5, 2.5, 3.5], [0, 1.5, 3]]);
  roots.forEach((root, bar) => {
    const pcs = scale.chordDegrees(root, size).map((d) => scale.note(d, 4) % 12);
    const voicing = voiceLead(pcs, prev, 55, 67);
    prev = voicing;
    const t0 = bar * BEATS_PER_BAR;
    const last = bar === roots.length - 1;
    const vel = mood.velocity * 0.7;
    if (last || mood.chordStyle === 'sustain') {
      for (const p of voicing) add(track, p, t0, BEATS_PER_BAR, vel);
    } else if (mood.chordStyle === 'arpeggio') {
      const tones = [...voicing, voicing[0]! + 12];
      arpShape.forEach((idx, i) => add(track, tones[idx % tones.length]!, t0 + i * 0.5, 1, vel * (i % 4 === 0 ? 1 : 0.8)));
    } else if (mood.chordStyle === 'stabs') {
      for (const s of stabs) for (const p of voicing) add(track, p, t0 + s, 0.45, vel * (s % 2 === 0 ? 1 : 0.85));
    } else {
      for (let i = 0; i < 8; i++) for (const p of voicing) add(track, p, t0 + i * 0.5, 0.45, vel * (i % 2 === 0 ? 1 : 0.75));
    }
  });
}

function writePad(track: Track, mood: MoodProfile, scale: Scale, roots: number[], size: 3 | 4, add: Add) {
  let prev: number[] | undefined;
  roots.forEach((root, bar) => {
    const pcs = scale.chordDegrees(root, size).map((d) => scale.note(d, 4) % 12);
    prev = voiceLead(pcs, prev, 50, 62);
    for (const p of prev) add(track, p, bar * BEATS_PER_BAR, BEATS_PER_BAR, mood.velocity * 0.45);
  });
}

function writeBass(track: Track, mood: MoodProfile, scale: Scale, roots: number[], add: Add) {
  roots.forEach((root, bar) => {
    const t0 = bar * BEATS_PER_BAR;
    const r = scale.note(root, 2);
    const fifth = scale.note(root + 4, 2);
    const vel = mood.velocity * 0.85;
    const last = bar === roots.length - 1;
    if (last || mood.bassStyle === 'whole') {
      add(track, r, t0, BEATS_PER_BAR, vel);
    } else if (mood.bassStyle === 'rootFifth') {
      add(track, r, t0, 1.5, vel);
      add(track, r, t0 + 1.5, 0.5, vel * 0.8);
      add(track, fifth, t0 + 2, 2, vel * 0.9);
    } else if (mood.bassStyle === 'octaves') {
      for (let i = 0; i < 8; i++) add(track, i % 2 === 0 ? r : r + 12, t0 + i * 0.5, 0.45, vel * (i === 0 ? 1 : 0.8));
    } else {
      // Walking: root, third, fifth, then a chromatic approach to the next bar's root.
      const next = scale.note(roots[bar + 1] ?? 0, 2);
      const approach = next > r ? next - 1 : next + 1;
      [r, scale.note(root + 2, 2), fifth, approach].forEach((p, i) => add(track, p, t0 + i, 0.9, vel * (i === 0 ? 1 : 0.8)));
    }
  });
}

const KICK = 36, SNARE = 38, HAT = 42, OPEN_HAT = 46, CRASH = 49, RIDE = 51, RIDE_BELL = 53, TOM_LO = 45, TOM_MID = 47, TOM_HI = 50, SIDE_STICK = 37, SHAKER = 70;

function writeDrums(track: Track, mood: MoodProfile, bars: number, add: Add, rng: Rng) {
  const v = mood.velocity;
  for (let bar = 0; bar < bars; bar++) {
    const t0 = bar * BEATS_PER_BAR;
    const last = bar === bars - 1;
    const sectionStart = bar % 4 === 0;
    const fillBar = bar % 4 === 3 && !last;
    if (sectionStart && (bar > 0 || mood.drums === 'epic')) add(track, CRASH, t0, 2, v * 0.8);
    if (last) {
      add(track, KICK, t0, 1, v);
      add(track, mood.drums === 'sparse' ? RIDE_BELL : CRASH, t0, 3, v * 0.8);
      continue;
    }
    switch (mood.drums) {
      case 'pop':
        for (let i = 0; i < 8; i++) add(track, i === 7 && rng() < 0.3 ? OPEN_HAT : HAT, t0 + i * 0.5, 0.4, v * (i % 2 === 0 ? 0.6 : 0.45));
        add(track, KICK, t0, 0.5, v);
        if (rng() < 0.5) add(track, KICK, t0 + 1.5, 0.5, v * 0.8);
        add(track, KICK, t0 + 2, 0.5, v * 0.9);
        add(track, SNARE, t0 + 1, 0.5, v * 0.85);
        if (!fillBar) add(track, SNARE, t0 + 3, 0.5, v * 0.85);
        break;
      case 'shuffle':
        for (let beat = 0; beat < 4; beat++) {
          add(track, HAT, t0 + beat, 0.3, v * 0.55);
          add(track, HAT, t0 + beat + 2 / 3, 0.3, v * 0.4);
        }
        add(track, KICK, t0, 0.5, v);
        add(track, KICK, t0 + 2, 0.5, v * 0.85);
        add(track, SIDE_STICK, t0 + 1, 0.5, v * 0.7);
        if (!fillBar) add(track, SIDE_STICK, t0 + 3, 0.5, v * 0.7);
        break;
      case 'epic':
        add(track, KICK, t0, 1, v);
        add(track, KICK, t0 + 0.75, 0.5, v * 0.7);
        add(track, KICK, t0 + 2, 1, v * 0.9);
        add(track, SNARE, t0 + 3, 0.5, v * 0.8);
        if (bar % 2 === 1) [TOM_HI, TOM_MID, TOM_LO].forEach((tom, i) => add(track, tom, t0 + 1 + i * 0.5, 0.5, v * 0.7));
        break;
      case 'sparse':
        add(track, RIDE_BELL, t0, 1, v * 0.45);
        for (let i = 1; i < 8; i += 2) add(track, SHAKER, t0 + i * 0.5, 0.3, v * 0.3);
        if (bar % 2 === 1) add(track, TOM_LO, t0 + 3.5, 0.5, v * 0.5);
        break;
      case 'soft':
        add(track, SIDE_STICK, t0 + 1, 0.5, v * 0.5);
        add(track, SIDE_STICK, t0 + 3, 0.5, v * 0.5);
        for (let i = 0; i < 4; i++) add(track, RIDE, t0 + i, 0.5, v * 0.4);
        break;
    }
    if (fillBar) for (let i = 0; i < 4; i++) add(track, mood.drums === 'epic' ? TOM_LO : SNARE, t0 + 3 + i * 0.25, 0.25, v * (0.6 + i * 0.1));
  }
}

/** A two-bar rhythm and contour; steps are relative so it can be replayed over other chords. */
function makeMotif(rng: Rng, density: number): MotifNote[] {
  const strong = (slot: number) => slot % 4 === 0;
  const onsets: number[] = [];
  for (let slot = 0; slot < 15; slot++) {
    const p = slot === 0 ? 1 : strong(slot) ? density + 0.15 : slot % 2 === 0 ? density : density * 0.45;
    if (rng() < p) onsets.push(slot);
  }
  if (onsets.length < 3) onsets.splice(0, onsets.length, 0, 4, 8, 12);
  let step = 0;
  return onsets.map((slot, i) => {
    const next = onsets[i + 1] ?? 16;
    if (i > 0) step += weighted(rng, [[0, 0.12], [1, 0.24], [-1, 0.26], [2, 0.12], [-2, 0.12], [3, 0.05], [-3, 0.05], [4, 0.04]] as const);
    step = Math.max(-4, Math.min(5, step));
    return { slot, len: Math.min(4, next - slot), step };
  });
}

/** Nearest degree to `d` that is a tone of the chord on `root` (any octave). */
function snapToChord(d: number, root: number, size: 3 | 4): number {
  const tones = Array.from({ length: size }, (_, i) => (((root + 2 * i) % 7) + 7) % 7);
  for (const delta of [0, -1, 1, -2, 2, -3, 3]) if (tones.includes((((d + delta) % 7) + 7) % 7)) return d + delta;
  return d;
}

function writeMelody(track: Track, mood: MoodProfile, scale: Scale, roots: number[], size: 3 | 4, add: Add, rng: Rng) {
  const bars = roots.length;
  const motifA = makeMotif(rng, mood.density);
  const motifB = makeMotif(rng, mood.density);
  const vel = mood.velocity;
  // Pieces of six bars or more get a one-bar introduction without melody.
  const startBar = bars >= 6 ? 1 : 0;
  let anchor = snapToChord(2, roots[startBar] ?? 0, size);
  for (let bar = startBar; bar < bars - 1; bar += 2) {
    const phrase = Math.floor(bar / 4) % 4;
    const motif = phrase === 2 ? motifB : motifA;
    // Variation: the answering half of each phrase moves the motif and changes its ending.
    const answer = Math.floor(bar / 2) % 2 === 1;
    const shift = answer ? pick(rng, [-2, -1, 1, 2]) : 0;
    motif.forEach((n, i) => {
      const localBar = bar + Math.floor(n.slot / 8);
      if (localBar >= bars - 1) return;
      const beat = localBar * BEATS_PER_BAR + (n.slot % 8) * 0.5;
      let degree = anchor + n.step + shift;
      if (answer && i === motif.length - 1) degree += pick(rng, [-1, 1, 2]);
      if (n.slot % 4 === 0) degree = snapToChord(degree, roots[localBar]!, size);
      degree = Math.max(-3, Math.min(9, degree));
      add(track, scale.note(degree, mood.leadOctave), beat, n.len * 0.5, vel * (n.slot % 8 === 0 ? 1 : 0.85));
    });
    anchor = snapToChord(anchor + pick(rng, [-1, 0, 0, 1]), roots[Math.min(bar + 2, bars - 1)]!, size);
  }
  // Cadence: the tonic, held through the last bar.
  add(track, scale.note(bars >= 2 ? 7 : 0, mood.leadOctave - (bars >= 2 ? 1 : 0)), (bars - 1) * BEATS_PER_BAR, BEATS_PER_BAR, vel * 0.9);
}
