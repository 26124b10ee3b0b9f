import { spawn } from 'node:child_process';
import { EngineError } from '../../types.js';
import { requireFfmpeg } from './ffmpegBuild.js';
import { channelCount } from '../audio/limits.js';

/** What the video engines need to know about a media file. */
export interface MediaProbe {
  /** Seconds, from the container header (or a full decode when the header does not say). */
  durationSeconds: number | undefined;
  video: { width: number; height: number; fps: number | undefined; codec: string } | undefined;
  audio: { sampleRate: number | undefined; channels: number | undefined; codec: string } | undefined;
}

/** ffmpeg's stderr whatever its exit code (`ffmpeg -i file` alone always "fails": it has no output). */
export function ffmpegStderr(args: string[], signal?: AbortSignal, timeoutMs = 60_000): Promise<string> {
  const bin = requireFfmpeg().ffmpeg;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-nostdin', ...args], { stdio: ['ignore', 'ignore', 'pipe'], signal });
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      err += d;
      if (err.length > 256_000) err = err.slice(-128_000);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(signal?.aborted ? new EngineError('stopped: the run was canceled or ran out of time') : new EngineError(`ffmpeg could not start: ${e.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(err);
    });
  });
}

const hms = (h: string, m: string, s: string) => Number(h) * 3600 + Number(m) * 60 + Number(s);

/**
 * Reads the stream summary ffmpeg prints for an input. Parsing `ffmpeg -i` rather than ffprobe JSON
 * because the static npm build ships no ffprobe; the summary's format is the same in 4.1 and 5.x.
 */
export function parseProbe(stderr: string): MediaProbe {
  const d = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  let video: MediaProbe['video'];
  let audio: MediaProbe['audio'];
  for (const line of stderr.split('\n')) {
    const s = /Stream #\d+:\d+.*?: (Video|Audio): (\w+)(.*)$/.exec(line);
    if (!s) continue;
    const rest = s[3]!;
    if (s[1] === 'Video' && !video && !/attached pic/.test(rest)) {
      const dims = /[ ,](\d{1,5})x(\d{1,5})[ ,\[]/.exec(`${rest} `);
      const fps = /([\d.]+) fps/.exec(rest) ?? /([\d.]+)k? tbr/.exec(rest);
      if (dims) video = { width: Number(dims[1]), height: Number(dims[2]), fps: fps ? Number(fps[1]) : undefined, codec: s[2]! };
    } else if (s[1] === 'Audio' && !audio) {
      const rate = /(\d+) Hz, ([^,]+)/.exec(rest) ?? /(\d+) Hz/.exec(rest);
      audio = { sampleRate: rate ? Number(rate[1]) : undefined, channels: rate?.[2] ? channelCount(rate[2]) : undefined, codec: s[2]! };
    }
  }
  // Phone videos carry a rotation that ffmpeg applies when decoding: report the size as it will be seen.
  const rot = /rotate\s*:\s*(-?\d+)/.exec(stderr) ?? /rotation of (-?[\d.]+) degrees/.exec(stderr);
  if (video && rot && Math.abs(Math.round(Number(rot[1]))) % 180 === 90) {
    video = { ...video, width: video.height, height: video.width };
  }
  return { durationSeconds: d ? hms(d[1]!, d[2]!, d[3]!) : undefined, video, audio };
}

/** Probes a file; when the header has no duration (some streams, animated images) decodes it to find one. */
export async function probeMedia(file: string, signal?: AbortSignal, opts: { decodeForDuration?: boolean } = {}): Promise<MediaProbe> {
  const p = parseProbe(await ffmpegStderr(['-i', file], signal));
  if (p.durationSeconds === undefined && (p.video || p.audio) && opts.decodeForDuration !== false) {
    p.durationSeconds = await decodedDuration(file, signal);
  }
  return p;
}

/** A file's length found by decoding it whole: for streams whose header has none or only an estimate (ADTS AAC). */
export async function decodedDuration(file: string, signal?: AbortSignal): Promise<number | undefined> {
  const decoded = await ffmpegStderr(['-i', file, '-map', '0', '-f', 'null', '-'], signal, 120_000);
  const times = [...decoded.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)].at(-1);
  return times ? hms(times[1]!, times[2]!, times[3]!) : undefined;
}
