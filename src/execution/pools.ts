import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Tinypool, type TinypoolChannel } from 'tinypool';
import { EngineError, type EngineContext, type EngineOutputs, type ExecuteRequest, type OutputValue } from '../engines/types.js';
import type { ChildResult, ChildTask, EngineSetup } from './child.js';
import { RunFailure } from './failure.js';
import type { ExecutionLimits } from './limits.js';
import { rebuildError, serializeError, type ChildMessage, type ParentMessage } from './protocol.js';

const ENTRY = new URL('./childEntry.mjs', import.meta.url).href;

/**
 * Engines that share a pool of children: one family's children load the same libraries and models, so a
 * warm child serves any engine of its family. Engines not listed get a pool of their own.
 */
const FAMILIES: Array<[RegExp, string]> = [
  [/^(text-template|json-extract|text-split|text-join|markdown-html|word-count)$/, 'text'],
  [/^(esrgan|human-objects|human-faces|nsfwjs|describe-image)$/, 'tfjs'],
  [/^(imgly-background-removal|paddle-ocr)$/, 'onnx'],
  [/^(image-|poster-render$|qr-code$|pattern-art$)/, 'image'],
  [/^video-/, 'video'],
  [/^(audio-|espeak$|flite$|festival$|sfxr$)/, 'audio'],
  [/^(openai|fal|replicate|comfyui)$/, 'remote'],
];

export function familyOf(engineId: string): string {
  for (const [re, family] of FAMILIES) if (re.test(engineId)) return family;
  return engineId;
}

/**
 * Supervised child-process pools that run every engine outside the service process (tinypool with its
 * child_process runtime). A pool per engine family keeps children warm between runs, bounds how many
 * run at once, replaces a child whose heap grew past the recycle limit or that died, and ends idle
 * children. Aborting a run's signal kills its child (SIGTERM, SIGKILL a second later); a child that dies
 * mid-task fails that task only, with `engine process exited: SIGNAL`.
 */
export class EnginePools {
  private readonly pools = new Map<string, Tinypool>();
  private closed = false;

  constructor(
    private readonly limits: ExecutionLimits,
    private readonly setup: EngineSetup,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  private pool(family: string): Tinypool {
    if (this.closed) throw new EngineError('the engine pools are shutting down', true);
    let pool = this.pools.get(family);
    if (!pool) {
      pool = new Tinypool({
        filename: ENTRY,
        runtime: 'child_process',
        // The text utilities keep one child warm so a cheap run never waits for a child to start.
        minThreads: family === 'text' ? 1 : 0,
        maxThreads: this.limits.childrenPerFamily,
        idleTimeout: this.limits.idleMs,
        concurrentTasksPerWorker: 1,
        maxMemoryLimitBeforeRecycle: this.limits.recycleMemoryMb * 1024 * 1024,
        execArgv: [`--max-old-space-size=${this.limits.childMemoryMb}`],
        // The text utilities are short and bounded by their input limits: they keep the normal priority, so
        // a cheap run stays fast on a busy machine; heavy families yield the CPU (child.ts, ATELIER_ENGINE_NICE).
        env: Object.fromEntries(Object.entries({ ...this.env, ATELIER_ENGINE_CHILD: '1', ...(family === 'text' ? { ATELIER_ENGINE_NICE: '0' } : {}) })
          .filter((e): e is [string, string] => typeof e[1] === 'string')),
        // Buffers (file outputs, fetched media) cross as bytes rather than as JSON arrays.
        serialization: 'advanced',
      });
      this.pools.set(family, pool);
    }
    return pool;
  }

  /** Starts a family's child and loads its engines before the first run needs them. */
  async warm(family: string): Promise<void> {
    await this.pool(family).run(this.task('', { nodeType: '', subModelId: '', input: {}, options: {} }, Date.now() + 60_000, '')).catch(() => {});
  }

  private task(engineId: string, req: ExecuteRequest, deadline: number, tmpDir: string): ChildTask {
    return { taskId: randomUUID(), engineId, req, deadline, tmpDir, maxOutputBytes: this.limits.maxOutputBytes, setup: this.setup };
  }

  /** Runs one engine call in a child of the engine's family; the context's signal kills the child. */
  async execute(engineId: string, req: ExecuteRequest, ctx: EngineContext): Promise<EngineOutputs> {
    const pool = this.pool(familyOf(engineId));
    const task = this.task(engineId, req, ctx.deadline, ctx.tmpDir);
    let toChild: ((m: ParentMessage) => void) | undefined;
    let exit: string | undefined;
    let watched: { child: NodeJS.EventEmitter; onExit: (code: number | null, signal: string | null) => void } | undefined;
    const channel: TinypoolChannel = {
      onMessage: (send) => {
        toChild = send;
      },
      postMessage: (m: ChildMessage) => {
        if (!m || typeof m !== 'object' || m.taskId !== task.taskId) return;
        switch (m.t) {
          case 'hello': {
            // Tinypool reports a dead child only as "exited unexpectedly": keep its signal for the message.
            const child = (pool.threads as unknown as Array<{ threadId: number; process?: NodeJS.EventEmitter }>).find((w) => w.threadId === m.pid)?.process;
            if (child) {
              const onExit = (code: number | null, signal: string | null) => {
                exit = signal ?? `exit code ${code}`;
              };
              child.once('exit', onExit);
              watched = { child, onExit };
            }
            break;
          }
          case 'progress': ctx.progress(m.fraction, m.message); break;
          case 'log': ctx.log[m.level]?.(String(m.msg), m.data); break;
          case 'fetchMedia':
            ctx.fetchMedia(m.url, m.opts).then(
              (media) => toChild?.({ t: 'media', id: m.id, bytes: media.bytes, contentType: media.contentType }),
              (err: unknown) => toChild?.({ t: 'media', id: m.id, error: serializeError(err) }),
            );
            break;
        }
      },
    };
    let result: ChildResult;
    try {
      result = await pool.run(task, { signal: ctx.signal, channel });
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (/exited unexpectedly/i.test((err as Error)?.message ?? '')) {
        throw new RunFailure('ENGINE_CRASHED', `engine process exited: ${exit ?? 'unexpectedly'}`, true);
      }
      throw err;
    } finally {
      watched?.child.off('exit', watched.onExit);
    }
    if (!result.ok) throw rebuildError(result.error);
    return normalizeOutputs(result.outputs);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.destroy().catch(() => {})));
  }
}

/** Bytes come back as Uint8Array from some serialisers; engines' consumers expect Buffers. */
function normalizeOutputs(outputs: EngineOutputs): EngineOutputs {
  const fix = (v: OutputValue): OutputValue => {
    if (v.kind !== 'file' || Buffer.isBuffer(v.data)) return v;
    if (v.data === undefined && v.path !== undefined) {
      // The bytes stayed in the run's scratch file (a large video): the store streams them from `path`; `data`
      // reads them only if someone asks, as on the engine's side of the process boundary.
      const file = v.path;
      let data: Buffer | undefined;
      const out = { ...v };
      Object.defineProperty(out, 'data', { enumerable: false, configurable: true, get: () => (data ??= readFileSync(file)) });
      return out;
    }
    return { ...v, data: Buffer.from((v.data as Uint8Array).buffer, (v.data as Uint8Array).byteOffset, (v.data as Uint8Array).byteLength) };
  };
  const out: EngineOutputs = {};
  for (const [k, v] of Object.entries(outputs)) out[k] = Array.isArray(v) ? v.map(fix) : fix(v);
  return out;
}
