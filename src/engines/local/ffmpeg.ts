import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EngineError } from '../types.js';

/**
 * Where ffmpeg comes from: the system's (Debian ffmpeg 5.x, full filter set, with ffprobe) when on PATH,
 * else the static 4.1 build shipped in @ffmpeg-installer/ffmpeg (no xfade; no ffprobe). Filters used by
 * engines must exist in both unless the engine checks `ffmpegInfo().system`.
 */
export interface FfmpegInfo {
  ffmpeg: string;
  /** ffprobe, only with the system build. */
  ffprobe: string | undefined;
  system: boolean;
}

let cached: FfmpegInfo | null | undefined;

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, bin);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch { /* keep looking */ }
  }
  return undefined;
}

export function ffmpegInfo(): FfmpegInfo | null {
  if (cached !== undefined) return cached;
  const sys = onPath('ffmpeg');
  if (sys) return (cached = { ffmpeg: sys, ffprobe: onPath('ffprobe'), system: true });
  try {
    const p = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    fs.accessSync(p, fs.constants.X_OK);
    return (cached = { ffmpeg: p, ffprobe: undefined, system: false });
  } catch {
    return (cached = null);
  }
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs a binary with an abort signal and a deadline; rejects with the tail of stderr on failure. */
export function runBinary(cmd: string, args: string[], opts: { signal?: AbortSignal; timeoutMs?: number; input?: Buffer; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(() => reject(new EngineError(`${path.basename(cmd)} was aborted`)));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new EngineError(`${path.basename(cmd)} timed out`)));
    }, opts.timeoutMs ?? 300_000);
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.length > 64_000) err = err.slice(-32_000);
    });
    child.on('error', (e) => finish(() => reject(new EngineError(`${path.basename(cmd)} could not start: ${e.message}`))));
    child.on('close', (code) => finish(() => {
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr: err });
      else reject(new EngineError(`${path.basename(cmd)} failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' | ')}`));
    }));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
  });
}

/** ffmpeg with quiet logging and no interactive prompts. */
export function runFfmpeg(args: string[], opts: { signal?: AbortSignal; timeoutMs?: number; input?: Buffer; cwd?: string } = {}): Promise<RunResult> {
  const info = ffmpegInfo();
  if (!info) throw new EngineError('ffmpeg is not available: install the Debian package ffmpeg, or run npm ci');
  return runBinary(info.ffmpeg, ['-hide_banner', '-nostdin', '-y', '-v', 'error', ...args], opts);
}

/** Duration in seconds of a media file, read by decoding its header with ffmpeg (works with either build). */
export async function mediaDurationSeconds(file: string, signal?: AbortSignal): Promise<number | undefined> {
  const info = ffmpegInfo();
  if (!info) return undefined;
  const r = await runBinary(info.ffmpeg, ['-hide_banner', '-nostdin', '-i', file, '-f', 'null', '-'], { signal, timeoutMs: 60_000 }).catch((e: Error) => ({ stderr: e.message, stdout: Buffer.alloc(0) }));
  const times = [...r.stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times.at(-1);
  if (last) return Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]);
  const d = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(r.stderr);
  return d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : undefined;
}
