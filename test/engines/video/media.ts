import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { ffmpegInfo } from '../../../src/engines/local/ffmpeg.js';
import { staticFfmpegInfo, useVideoFfmpegBuild, type BuildChoice } from '../../../src/engines/local/video/ffmpegBuild.js';
import { probeMedia } from '../../../src/engines/local/video/probe.js';
import type { EngineOutputs, FileOutput } from '../../../src/engines/types.js';

/**
 * Fixtures and artifact checks shared by the video engine tests. Fixtures are drawn with canvas or made by
 * ffmpeg's lavfi sources (testsrc, sine) into a temporary folder; nothing is downloaded.
 */

/** The builds present here: each engine test runs once per build. */
export function builds(): Array<Exclude<BuildChoice, 'auto'>> {
  const out: Array<Exclude<BuildChoice, 'auto'>> = [];
  if (ffmpegInfo()?.system) out.push('system');
  if (staticFfmpegInfo()) out.push('static');
  return out;
}

export function withBuild(build: BuildChoice): void {
  useVideoFfmpegBuild(build);
}

export const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-video-fixtures-'));
process.on('exit', () => fs.rmSync(fixtureDir, { recursive: true, force: true }));

/** Any ffmpeg, to make fixtures (the static build needs no PATH entry). */
function anyFfmpeg(): string {
  const bin = ffmpegInfo()?.ffmpeg ?? staticFfmpegInfo()?.ffmpeg;
  assert.ok(bin, 'no ffmpeg for fixtures');
  return bin;
}

export function fileUrl(file: string): string {
  return pathToFileURL(file).href;
}

/** A PNG with a colour gradient, a grid and a label, so motion and crops are visible when looked at. */
export function makeImage(name: string, width: number, height: number, hue = 200): string {
  const c = createCanvas(width, height);
  const g = c.getContext('2d');
  const grad = g.createLinearGradient(0, 0, width, height);
  grad.addColorStop(0, `hsl(${hue}, 80%, 35%)`);
  grad.addColorStop(1, `hsl(${(hue + 120) % 360}, 80%, 65%)`);
  g.fillStyle = grad;
  g.fillRect(0, 0, width, height);
  g.strokeStyle = 'rgba(255,255,255,0.6)';
  for (let x = 0; x < width; x += 40) g.strokeRect(x, 0, 1, height);
  for (let y = 0; y < height; y += 40) g.strokeRect(0, y, width, 1);
  g.fillStyle = 'white';
  g.fillRect(width / 2 - 20, height / 2 - 20, 40, 40);
  const file = path.join(fixtureDir, `${name}.png`);
  fs.writeFileSync(file, c.toBuffer('image/png'));
  return file;
}

/** An MP4 from testsrc (moving pattern with a frame counter) or a flat colour, with a sine tone unless `audio: false`. */
export function makeVideo(name: string, o: { width: number; height: number; seconds: number; fps?: number; audio?: boolean; freq?: number; color?: string }): string {
  const file = path.join(fixtureDir, `${name}.mp4`);
  const src = o.color ? `color=c=${o.color}:` : 'testsrc=';
  const args = ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `${src}s=${o.width}x${o.height}:r=${o.fps ?? 25}:d=${o.seconds}`];
  if (o.audio !== false) args.push('-f', 'lavfi', '-i', `sine=f=${o.freq ?? 440}:d=${o.seconds}:r=44100`);
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (o.audio !== false) args.push('-c:a', 'aac', '-shortest');
  args.push(file);
  execFileSync(anyFfmpeg(), args);
  return file;
}

/** A WAV: a tone whose loudness swells, so a waveform has something to show. */
export function makeAudio(name: string, seconds: number): string {
  const file = path.join(fixtureDir, `${name}.wav`);
  execFileSync(anyFfmpeg(), ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=f=330:d=${seconds}:r=44100`, '-af', 'volume=0.3+0.7*sin(2*PI*t)*sin(2*PI*t):eval=frame', file]);
  return file;
}

export interface Inspected {
  durationSeconds: number | undefined;
  width?: number;
  height?: number;
  videoCodec?: string;
  pixFmt?: string;
  audioCodec?: string;
  hasVideo: boolean;
  hasAudio: boolean;
}

/**
 * Describes an artifact independently of the engine: with ffprobe (system build) when present, else the
 * ffmpeg stream summary. Also decodes every frame and fails on any decoder error.
 */
export async function inspect(out: FileOutput, ext: string): Promise<Inspected> {
  const file = path.join(fixtureDir, `out-${Date.now()}-${Math.random().toString(36).slice(2)}.${ext}`);
  fs.writeFileSync(file, out.data);
  const decoded = spawnSync(anyFfmpeg(), ['-hide_banner', '-v', 'error', '-i', file, '-f', 'null', '-'], { encoding: 'utf8' });
  assert.equal(decoded.status, 0, `the ${ext} output does not decode: ${decoded.stderr}`);
  assert.equal(decoded.stderr.trim(), '', `decoding the ${ext} output reported errors`);
  const probe = ffmpegInfo()?.ffprobe;
  if (probe) {
    const j = JSON.parse(execFileSync(probe, ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]).toString()) as {
      streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string }>;
      format: { duration?: string };
    };
    const v = j.streams.find((s) => s.codec_type === 'video');
    const a = j.streams.find((s) => s.codec_type === 'audio');
    return {
      durationSeconds: j.format.duration ? Number(j.format.duration) : undefined,
      width: v?.width, height: v?.height, videoCodec: v?.codec_name, pixFmt: v?.pix_fmt, audioCodec: a?.codec_name,
      hasVideo: !!v, hasAudio: !!a,
    };
  }
  const p = await probeMedia(file);
  return {
    durationSeconds: p.durationSeconds, width: p.video?.width, height: p.video?.height, videoCodec: p.video?.codec,
    audioCodec: p.audio?.codec, hasVideo: !!p.video, hasAudio: !!p.audio,
  };
}

/** Grey levels (0..255) of the frame at `seconds`, scaled to w×h: for checking what a frame shows. */
export function grayFrame(out: FileOutput, seconds: number, w: number, h: number): Buffer {
  const file = path.join(fixtureDir, `frame-${Date.now()}-${Math.random().toString(36).slice(2)}.mp4`);
  fs.writeFileSync(file, out.data);
  const r = spawnSync(anyFfmpeg(), ['-v', 'error', '-ss', String(seconds), '-i', file, '-frames:v', '1', '-vf', `scale=${w}:${h},format=gray`, '-f', 'rawvideo', '-'], { maxBuffer: 1 << 24 });
  assert.equal(r.status, 0, r.stderr?.toString());
  assert.equal(r.stdout.length, w * h);
  return r.stdout;
}

/** The single file of a media model's `result`. */
export function onlyFile(outputs: EngineOutputs, name = 'result'): FileOutput {
  const r = outputs[name];
  assert.ok(Array.isArray(r) && r.length === 1, `${name} should hold one file`);
  const f = r[0]!;
  assert.equal(f.kind, 'file');
  return f as FileOutput;
}

/** Checks an MP4 the way every video engine promises: H.264 yuv420p, even size, optional AAC. */
export async function assertMp4(out: FileOutput, want: { width?: number; height?: number; seconds?: number; tolerance?: number; audio?: boolean }): Promise<Inspected> {
  assert.equal(out.contentType, 'video/mp4');
  const i = await inspect(out, 'mp4');
  assert.equal(i.videoCodec, 'h264');
  if (i.pixFmt) assert.equal(i.pixFmt, 'yuv420p');
  assert.equal(i.width! % 2, 0);
  assert.equal(i.height! % 2, 0);
  if (want.width) assert.equal(i.width, want.width);
  if (want.height) assert.equal(i.height, want.height);
  if (want.seconds !== undefined) {
    assert.ok(i.durationSeconds !== undefined && Math.abs(i.durationSeconds - want.seconds) <= (want.tolerance ?? 0.15),
      `duration ${i.durationSeconds} should be ${want.seconds}`);
  }
  if (want.audio !== undefined) assert.equal(i.hasAudio, want.audio, want.audio ? 'expected an audio stream' : 'expected no audio stream');
  if (i.hasAudio) assert.equal(i.audioCodec, 'aac');
  // moov before mdat: +faststart worked.
  const moov = out.data.indexOf('moov');
  const mdat = out.data.indexOf('mdat');
  assert.ok(moov > 0 && mdat > 0 && moov < mdat, 'moov atom should come first (+faststart)');
  assert.equal(out.width, i.width);
  assert.equal(out.height, i.height);
  return i;
}

/** Grey levels (0–255) of the frame at `seconds` of a video output, decoded at full size: mean and spread. */
export function frameStats(out: FileOutput, seconds: number): { mean: number; std: number } {
  const file = path.join(fixtureDir, `frame-${Date.now()}-${Math.random().toString(36).slice(2)}.mp4`);
  fs.writeFileSync(file, out.data);
  const raw = execFileSync(anyFfmpeg(), ['-hide_banner', '-v', 'error', '-ss', seconds.toFixed(3), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { maxBuffer: 64 * 1024 * 1024 });
  assert.ok(raw.length > 0, `no frame at ${seconds} s`);
  let sum = 0;
  for (const v of raw) sum += v;
  const mean = sum / raw.length;
  let sq = 0;
  for (const v of raw) sq += (v - mean) ** 2;
  return { mean, std: Math.sqrt(sq / raw.length) };
}
