import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, EngineInputError, type Availability, type EngineContext, type FileOutput } from '../../types.js';
import { ffmpegInfo, runBinary, runFfmpeg } from '../ffmpeg.js';
import { readWavInfo } from './wav.js';
import { ffmpegStderr } from '../video/probe.js';
import { channelCount, checkAudioShape, checkDecodedSize, DEFAULT_MAX_OUTPUT_BYTES, MAX_AUDIO_SECONDS, pcmBytes } from './limits.js';

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

/** Rate, channels and length as the file's header states them (`ffmpeg -i` alone decodes nothing). */
export function parseAudioHeader(stderr: string): { sampleRate: number; channels: number; durationSeconds: number | undefined } | undefined {
  const stream = /Stream #\d+:\d+[^:]*: Audio: [^\n]*?(\d+) Hz, ([^,\n]+)/.exec(stderr);
  if (!stream) return undefined;
  const channels = channelCount(stream[2]!);
  const d = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  return { sampleRate: Number(stream[1]), channels, durationSeconds: d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : undefined };
}

/**
 * Reads the first audio stream's format from the header and refuses an input over the caps (limits.ts)
 * before decoding anything; then decodes it (to null output, at most just past the length cap, so a
 * header that lies about the length cannot make it decode for ever) for the exact length.
 * A file ffmpeg cannot decode is the caller's problem, so it is an input error, not an engine failure.
 */
export async function probeAudio(file: string, label: string, signal?: AbortSignal): Promise<AudioProbe> {
  const info = ffmpegInfo();
  if (!info) throw new EngineError('ffmpeg is not available: install the Debian package ffmpeg, or run npm ci');
  // `ffmpeg -i` alone reads the header, prints its summary and exits 1 ("no output"): its stderr is what counts.
  const header = await ffmpegStderr(['-i', file], signal);
  const declared = parseAudioHeader(header);
  if (declared) checkAudioShape(label, declared);
  let stderr: string;
  try {
    stderr = (await runBinary(info.ffmpeg, ['-hide_banner', '-nostdin', '-i', file, '-map', '0:a:0', '-t', String(MAX_AUDIO_SECONDS + 1), '-f', 'null', '-'], { signal, timeoutMs: 120_000 })).stderr;
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new EngineInputError(`${label} is not readable audio (${(e as Error).message.replace(/^.*?: /, '').slice(0, 200)})`);
  }
  const stream = parseAudioHeader(stderr);
  if (!stream) throw new EngineInputError(`${label} has no audio stream`);
  const times = [...stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times.at(-1);
  const durationSeconds = last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : 0;
  if (!(durationSeconds > 0)) throw new EngineInputError(`${label} contains no audio samples`);
  checkAudioShape(label, { ...stream, durationSeconds });
  return { file, durationSeconds, sampleRate: stream.sampleRate, channels: stream.channels };
}

/** What an engine's WAV result will hold, so its size is checked before ffmpeg writes it. */
export interface WavShape {
  seconds: number;
  sampleRate: number;
  channels: number;
}

/** The run's output limit (ATELIER_MAX_OUTPUT_BYTES), as the child tells its engines. */
export function outputLimit(ctx: EngineContext): number {
  return ctx.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
}

/**
 * Runs ffmpeg writing 16-bit PCM WAV to `out` and returns the file's bytes. The result's size (from `shape`)
 * is checked against the run's output limit first, and ffmpeg itself stops writing just past that limit
 * (`-fs`), so neither a wrong estimate nor a lying header can fill the disk or the memory.
 */
export async function ffmpegToWav(args: string[], out: string, ctx: EngineContext, opts: { sampleRate?: number; channels?: number; shape: WavShape }): Promise<Buffer> {
  const limit = outputLimit(ctx);
  const shape = { ...opts.shape, ...(opts.sampleRate ? { sampleRate: opts.sampleRate } : {}), ...(opts.channels ? { channels: opts.channels } : {}) };
  checkDecodedSize('the result', pcmBytes(shape.seconds, shape.sampleRate, shape.channels), limit);
  const fmt = [...(opts.sampleRate ? ['-ar', String(opts.sampleRate)] : []), ...(opts.channels ? ['-ac', String(opts.channels)] : [])];
  await runFfmpeg([...args, ...fmt, '-c:a', 'pcm_s16le', '-fs', String(limit + 1), '-f', 'wav', out], { signal: ctx.signal, timeoutMs: Math.max(5_000, ctx.deadline - Date.now()) });
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
