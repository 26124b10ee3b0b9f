import { EngineInputError, type Availability, type Engine, type EngineContext, type EngineOutputs, type ExecuteRequest } from '../../types.js';
import { videoFfmpegInfo } from './ffmpegBuild.js';

export const FFMPEG_REQUIREMENT = 'ffmpeg: the Debian package ffmpeg (5.x, preferred), else the static build in the npm package @ffmpeg-installer/ffmpeg';

export interface VideoEngineDef {
  id: string;
  extraRequirements?: string[];
  /** A further check beyond "some ffmpeg is installed" (e.g. the canvas binding loads). */
  extraAvailability?: () => Promise<Availability>;
  run(input: Record<string, unknown>, ctx: EngineContext, req: ExecuteRequest): Promise<EngineOutputs>;
}

/** Every video engine needs an ffmpeg build; this wraps the common availability check and start/end progress. */
export function videoEngine(def: VideoEngineDef): Engine {
  return {
    id: def.id,
    requirements: [FFMPEG_REQUIREMENT, ...(def.extraRequirements ?? [])],
    async availability() {
      if (!videoFfmpegInfo()) return { available: false, reason: 'no ffmpeg found: install the Debian package ffmpeg, or run npm ci to get the static build' };
      return def.extraAvailability ? def.extraAvailability() : { available: true };
    },
    async execute(req, ctx) {
      ctx.progress(0, 'reading input');
      const out = await def.run(req.input, ctx, req);
      ctx.progress(1, 'done');
      return out;
    },
  };
}

/** Maps an ffmpeg step's own 0..1 onto a slice of the run's progress bar. */
export function stage(ctx: EngineContext, from: number, to: number, message: string): (fraction: number) => void {
  ctx.progress(from, message);
  return (fraction) => ctx.progress(from + (to - from) * fraction, message);
}

/** Inputs arrive validated with defaults; these only guard the types for the compiler and direct callers. */
export function numberInput(input: Record<string, unknown>, name: string, fallback: number): number {
  const v = input[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function optionalNumber(input: Record<string, unknown>, name: string): number | undefined {
  const v = input[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function stringInput(input: Record<string, unknown>, name: string, fallback: string): string {
  const v = input[name];
  return typeof v === 'string' && v !== '' ? v : fallback;
}

/**
 * A `#rrggbb` colour input. The schema already checks the pattern; checked again here because colours are
 * written into ffmpeg filter graphs, where any other text could change the graph.
 */
export function colorInput(input: Record<string, unknown>, name: string, fallback: string): string {
  const v = stringInput(input, name, fallback);
  if (!/^#[0-9a-fA-F]{6}$/.test(v)) throw new EngineInputError(`${name} must be a colour like #1a2b3c`);
  return v;
}
