import { spawn } from 'node:child_process';
import { EngineError } from '../../types.js';
import { requireFfmpeg } from './ffmpegBuild.js';

export interface FfmpegJob {
  signal: AbortSignal;
  /** Epoch ms: ffmpeg is killed at this moment (the run's deadline). */
  deadline: number;
  /** Length of the output being written, so progress can be reported as a fraction. */
  expectedSeconds?: number;
  /** Called with 0..1 as ffmpeg reports its output position. */
  onProgress?: (fraction: number) => void;
}

const timeRe = /^out_time=(\d+):(\d+):(\d+(?:\.\d+)?)/m;

/**
 * Runs the selected ffmpeg build with `-progress pipe:1` so a long encode can report how far it got (the
 * shared runFfmpeg only reports at the end). Kills ffmpeg on abort or at the deadline; on failure the
 * error carries the last lines of ffmpeg's own message.
 */
export function ffmpeg(args: string[], job: FfmpegJob): Promise<void> {
  const bin = requireFfmpeg().ffmpeg;
  const full = ['-hide_banner', '-nostdin', '-y', '-v', 'error', '-nostats', '-progress', 'pipe:1', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, full, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let settled = false;
    let lastReported = -1;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      job.signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(() => reject(new EngineError('ffmpeg was stopped: the run was canceled or ran out of time')));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new EngineError('ffmpeg timed out')));
    }, Math.max(1000, job.deadline - Date.now()));
    if (job.signal.aborted) {
      onAbort();
      return;
    }
    job.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (!job.onProgress || !job.expectedSeconds) return;
      const m = timeRe.exec(chunk);
      if (!m) return;
      const seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
      const fraction = Math.max(0, Math.min(1, seconds / job.expectedSeconds));
      // ffmpeg reports twice a second; only pass on visible steps.
      if (fraction - lastReported >= 0.02) {
        lastReported = fraction;
        job.onProgress(fraction);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr += d;
      if (stderr.length > 64_000) stderr = stderr.slice(-32_000);
    });
    child.on('error', (e) => finish(() => reject(new EngineError(`ffmpeg could not start: ${e.message}`))));
    child.on('close', (code) => finish(() => {
      if (code === 0) resolve();
      else reject(new EngineError(`ffmpeg failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    }));
  });
}
