import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, EngineInputError, type Availability, type EngineContext, type FileOutput } from '../../types.js';
import { ffmpegInfo, runBinary, runFfmpeg } from '../ffmpeg.js';
import { readWavInfo } from './wav.js';

export const ffmpegRequirement = 'ffmpeg: the Debian package ffmpeg, or the static build from npm @ffmpeg-installer/ffmpeg';

/** For engines that need nothing but ffmpeg. */
export async function ffmpegAvailability(): Promise<Availability> {
  return ffmpegInfo() ? { available: true } : { available: false, reason: 'ffmpeg is not available: install the Debian package ffmpeg, or run npm ci' };
}

/** What ffmpeg found in an input: enough to choose filters and to refuse unreadable files early. */
export interface AudioProbe {
  file: string;
  durationSeconds: number;
  sampleRate: number;
  channels: number;
}

/** Fetches an audio input into the scratch folder, so ffmpeg can seek in it (MP4/M4A need that). */
export async function fetchAudioFile(ctx: EngineContext, url: string, name: string): Promise<string> {
  const media = await ctx.fetchMedia(url, { accept: 'audio' });
  if (media.bytes.length === 0) throw new EngineInputError(`${name}: the audio file is empty`);
  const file = path.join(ctx.tmpDir, `${name}.input`);
  await fs.writeFile(file, media.bytes);
  return file;
}

const CHANNELS: Record<string, number> = { mono: 1, stereo: 2, '2.1': 3, quad: 4, '4.0': 4, '5.0': 5, '5.1': 6, '6.1': 7, '7.1': 8 };

/**
 * Decodes the whole first audio stream (to null output) and reads format and length from ffmpeg's log.
 * A file ffmpeg cannot decode is the caller's problem, so it is an input error, not an engine failure.
 */
export async function probeAudio(file: string, label: string, signal?: AbortSignal): Promise<AudioProbe> {
  const info = ffmpegInfo();
  if (!info) throw new EngineError('ffmpeg is not available: install the Debian package ffmpeg, or run npm ci');
  let stderr: string;
  try {
    stderr = (await runBinary(info.ffmpeg, ['-hide_banner', '-nostdin', '-i', file, '-map', '0:a:0', '-f', 'null', '-'], { signal, timeoutMs: 120_000 })).stderr;
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new EngineInputError(`${label} is not readable audio (${(e as Error).message.replace(/^.*?: /, '').slice(0, 200)})`);
  }
  const stream = /Stream #\d+:\d+[^:]*: Audio: [^\n]*?(\d+) Hz, ([^,\n]+)/.exec(stderr);
  if (!stream) throw new EngineInputError(`${label} has no audio stream`);
  const layout = stream[2]!.trim();
  const channels = CHANNELS[layout] ?? (Number(/(\d+) channels/.exec(layout)?.[1]) || 2);
  const times = [...stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times.at(-1);
  const durationSeconds = last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : 0;
  if (!(durationSeconds > 0)) throw new EngineInputError(`${label} contains no audio samples`);
  return { file, durationSeconds, sampleRate: Number(stream[1]), channels };
}

/** Runs ffmpeg writing 16-bit PCM WAV to `out` and returns the file's bytes. */
export async function ffmpegToWav(args: string[], out: string, ctx: EngineContext, opts: { sampleRate?: number; channels?: number } = {}): Promise<Buffer> {
  const fmt = [...(opts.sampleRate ? ['-ar', String(opts.sampleRate)] : []), ...(opts.channels ? ['-ac', String(opts.channels)] : [])];
  await runFfmpeg([...args, ...fmt, '-c:a', 'pcm_s16le', '-f', 'wav', out], { signal: ctx.signal, timeoutMs: Math.max(5_000, ctx.deadline - Date.now()) });
  return fs.readFile(out);
}

/** Wraps WAV bytes as an output file, with its length read from the header. */
export function wavOutput(data: Buffer, filename: string): FileOutput {
  const info = readWavInfo(data);
  if (!info) throw new EngineError('the engine did not produce a WAV file');
  if (info.frames === 0) throw new EngineError('the engine produced an empty WAV file');
  return { kind: 'file', data, contentType: 'audio/wav', filename, durationSeconds: Math.round(info.durationSeconds * 1000) / 1000 };
}

/** Milliseconds left before the run's deadline, for child-process time limits. */
export function timeLeft(ctx: EngineContext): number {
  return Math.max(1_000, ctx.deadline - Date.now());
}
