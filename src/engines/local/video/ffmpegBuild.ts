import fs from 'node:fs';
import { createRequire } from 'node:module';
import { ffmpegInfo, type FfmpegInfo } from '../ffmpeg.js';
import { EngineError } from '../../types.js';

/**
 * Which ffmpeg build the video engines use. Normally the shared locator's choice (system ffmpeg 5.x when on
 * PATH, else the static 4.1 npm build). `ATELIER_VIDEO_FFMPEG=static|system` or `useVideoFfmpegBuild()`
 * forces one, so the static path (no xfade, no ffprobe) can be exercised on a machine that has both.
 */
export type BuildChoice = 'auto' | 'system' | 'static';

let forced: BuildChoice | undefined;

/** For tests and tools: force a build for every later call (undefined = back to the env / auto choice). */
export function useVideoFfmpegBuild(choice: BuildChoice | undefined): void {
  forced = choice;
}

let staticInfo: FfmpegInfo | null | undefined;

/** The static build shipped in @ffmpeg-installer/ffmpeg, whatever is on PATH. */
export function staticFfmpegInfo(): FfmpegInfo | null {
  if (staticInfo !== undefined) return staticInfo;
  try {
    const p = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    fs.accessSync(p, fs.constants.X_OK);
    staticInfo = { ffmpeg: p, ffprobe: undefined, system: false };
  } catch {
    staticInfo = null;
  }
  return staticInfo;
}

function choice(): BuildChoice {
  if (forced) return forced;
  const env = process.env.ATELIER_VIDEO_FFMPEG;
  return env === 'static' || env === 'system' ? env : 'auto';
}

/** The build to use now, or null when none is installed. */
export function videoFfmpegInfo(): FfmpegInfo | null {
  const c = choice();
  if (c === 'static') return staticFfmpegInfo();
  const auto = ffmpegInfo();
  if (c === 'system') return auto?.system ? auto : null;
  return auto;
}

export function requireFfmpeg(): FfmpegInfo {
  const info = videoFfmpegInfo();
  if (!info) {
    throw new EngineError(choice() === 'auto'
      ? 'ffmpeg is not available: install the Debian package ffmpeg, or run npm ci'
      : `the ${choice()} ffmpeg build was requested (ATELIER_VIDEO_FFMPEG) but is not installed`);
  }
  return info;
}
