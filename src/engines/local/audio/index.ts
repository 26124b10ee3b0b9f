import type { Engine } from '../../types.js';
import { concatAudioEngine } from './concat.js';
import { espeakEngine } from './espeak.js';
import { festivalEngine } from './festival.js';
import { fliteEngine } from './flite.js';
import { mixAudioEngine } from './mix.js';
import { musicEngine } from './music/engine.js';
import { pitchShiftEngine } from './pitch.js';
import { sfxrEngine } from './sfxr.js';
import { changeSpeedEngine } from './speed.js';
import { transcribeEngine } from './transcribe.js';
import { trimAudioEngine } from './trim.js';

/** Offline audio engines: speech synthesis, sound effects, music, ffmpeg utilities, speech recognition. */
export const audioEngines: Engine[] = [
  espeakEngine,
  fliteEngine,
  festivalEngine,
  sfxrEngine,
  musicEngine,
  trimAudioEngine,
  concatAudioEngine,
  mixAudioEngine,
  changeSpeedEngine,
  pitchShiftEngine,
  transcribeEngine,
];
