import { EngineInputError } from '../../types.js';

/**
 * Caps on every audio input (issue 26): a small compressed file (a FLAC of silence) can decode to gigabytes,
 * so length, sample rate and channel count are checked from the file's header before anything is decoded,
 * and the size of what an engine would write is checked before it writes it.
 */

/** Longest audio input, in seconds. */
export const MAX_AUDIO_SECONDS = 30 * 60;
/** Highest sample rate of an audio input, in Hz (studio masters go to 96 kHz; more is not for this service). */
export const MAX_SAMPLE_RATE = 96_000;
/** Most channels of an audio input (7.1 surround). */
export const MAX_CHANNELS = 8;
/** Used when the run's own output limit is not known (ATELIER_MAX_OUTPUT_BYTES' default). */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

const LAYOUTS: Record<string, number> = { mono: 1, stereo: 2, '2.1': 3, quad: 4, '4.0': 4, '5.0': 5, '5.1': 6, '6.1': 7, '7.1': 8 };

/** Channels of an ffmpeg channel layout name ("stereo", "5.1(side)", "12 channels"). */
export function channelCount(layout: string): number {
  const l = layout.trim();
  return LAYOUTS[l] ?? LAYOUTS[l.replace(/\(.*\)$/, '')] ?? (Number(/(\d+) channels/.exec(l)?.[1]) || 2);
}

export interface AudioShape {
  durationSeconds?: number;
  sampleRate?: number;
  channels?: number;
}

const tooLarge = (message: string) => new EngineInputError(message, 'INPUT_TOO_LARGE');

/** Refuses an input over the length, rate or channel cap (from its header: nothing is decoded yet). */
export function checkAudioShape(label: string, a: AudioShape): void {
  if (a.sampleRate !== undefined && a.sampleRate > MAX_SAMPLE_RATE) {
    throw tooLarge(`${label} has a sample rate of ${a.sampleRate} Hz; the limit is ${MAX_SAMPLE_RATE} Hz`);
  }
  if (a.channels !== undefined && a.channels > MAX_CHANNELS) {
    throw tooLarge(`${label} has ${a.channels} channels; the limit is ${MAX_CHANNELS}`);
  }
  if (a.durationSeconds !== undefined && a.durationSeconds > MAX_AUDIO_SECONDS) {
    throw tooLarge(`${label} is ${Math.round(a.durationSeconds)} s long; the limit is ${MAX_AUDIO_SECONDS} s`);
  }
}

/** Bytes of PCM audio: seconds × rate × channels × bytes per sample, plus a WAV header. */
export function pcmBytes(seconds: number, sampleRate: number, channels: number, bytesPerSample = 2): number {
  return Math.ceil(seconds * sampleRate) * channels * bytesPerSample + 44;
}

/**
 * Refuses, before anything is written, a result whose decoded size would pass the run's output limit
 * (a whole long file trimmed to itself, change_speed at 0.25 making it four times longer).
 */
export function checkDecodedSize(what: string, bytes: number, limit: number): void {
  if (bytes > limit) {
    throw tooLarge(`${what} would be ${bytes} bytes of audio, over this server's limit of ${limit} bytes per run (ATELIER_MAX_OUTPUT_BYTES): use a shorter part of the input, fewer channels or a lower sample rate`);
  }
}
