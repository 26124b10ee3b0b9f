import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { type EngineContext, type EngineOutputs, type ExecuteRequest, type OutputValue } from '../engines/types.js';
import type { ChildResult, ChildTask, EngineSetup } from './protocol.js';
import { PoolsClosed, RunFailure } from './failure.js';
import type { ExecutionLimits } from '../config.js';
import { ChildPool, type ChildJob } from './childPool.js';
import { groupResidentBytes } from './processGroup.js';
import { rebuildError, serializeError, type ChildMessage } from './protocol.js';
import { currentTraceparent } from '../tracing/tracing.js';
import { familyOf } from '../engines/families.js';

/** How often the children's resident memory is read while any child is alive. */
const MEMORY_POLL_MS = 500;

/**
 * Supervised child-process pools that run every engine outside the service process (childPool.ts). A pool
 * per engine family keeps children warm between runs, bounds how many run at once, replaces a child whose
 * heap grew past the recycle limit or that died, and ends idle children. Each child leads its own process
 * group, so only this supervisor decides when it and the programs it started stop. Aborting a run's
 * signal kills its child's group; a child that dies mid-task fails that task only, with `engine process
 * exited: SIGNAL`; a child whose group's resident memory passes ATELIER_ENGINE_RESIDENT_MB is killed and
 * its task fails `ENGINE_OUT_OF_MEMORY`.
 */
export class EnginePools {
  private readonly pools = new Map<string, ChildPool>();
  private closed = false;
  private memoryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: ExecutionLimits,
    private readonly setup: EngineSetup,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Told about a child that died or was killed outside a task (for the log). */
    private readonly onEvent: (msg: string, data: Record<string, unknown>) => void = () => {},
  ) {}

  private pool(family: string): ChildPool {
    if (this.closed) throw new PoolsClosed();
    let pool = this.pools.get(family);
    if (!pool) {
      pool = new ChildPool({
        family,
        // The text utilities keep one child warm so a cheap run never waits for a child to start.
        minChildren: family === 'text' ? 1 : 0,
        maxChildren: this.limits.childrenPerFamily,
        idleMs: this.limits.idleMs,
        recycleHeapBytes: this.limits.recycleMemoryMb * 1024 * 1024,
        execArgv: [`--max-old-space-size=${this.limits.childMemoryMb}`],
        // The text utilities are short and bounded by their input limits: they keep the normal priority, so
        // a cheap run stays fast on a busy machine; heavy families yield the CPU (child.ts, ATELIER_ENGINE_NICE).
        env: Object.fromEntries(Object.entries({ ...this.env, ATELIER_ENGINE_CHILD: '1', ...(family === 'text' ? { ATELIER_ENGINE_NICE: '0' } : {}) })
          .filter((e): e is [string, string] => typeof e[1] === 'string')),
        onEvent: this.onEvent,
      });
      this.pools.set(family, pool);
      this.watchMemory();
    }
    return pool;
  }

  /**
   * Reads every child's resident memory (the child and the programs it started, by process group) while
   * any child lives: the heap limit alone lets native memory (decoded media, onnxruntime) grow unchecked.
   */
  private watchMemory(): void {
    if (this.memoryTimer || this.limits.residentMemoryMb === 0) return;
    const limit = this.limits.residentMemoryMb * 1024 * 1024;
    this.memoryTimer = setInterval(() => {
      const children = [...this.pools.values()].flatMap((p) => p.children());
      if (children.length === 0) return;
      const rss = groupResidentBytes(children.map((c) => c.pid));
      for (const child of children) {
        const bytes = rss.get(child.pid) ?? 0;
        if (bytes <= limit) continue;
        const mb = Math.round(bytes / (1024 * 1024));
        child.kill(new RunFailure('ENGINE_OUT_OF_MEMORY',
          `the engine process used ${mb} MiB of memory, over this server's limit of ${this.limits.residentMemoryMb} MiB per engine process (ATELIER_ENGINE_RESIDENT_MB)`));
      }
    }, MEMORY_POLL_MS);
    this.memoryTimer.unref();
  }

  /** Starts a family's child and loads its engines before the first run needs them. */
  async warm(family: string): Promise<void> {
    const ctl = new AbortController();
    await this.pool(family).run({ task: this.task('', { nodeType: '', subModelId: '', input: {}, options: {} }, Date.now() + 60_000, ''), signal: ctl.signal, onMessage: () => {} })
      .catch(() => {});
  }

  private task(engineId: string, req: ExecuteRequest, deadline: number, tmpDir: string): ChildTask {
    return { taskId: randomUUID(), engineId, req, deadline, tmpDir, maxOutputBytes: this.limits.maxOutputBytes, setup: this.setup, traceparent: currentTraceparent() };
  }

  /** Runs one engine call in a child of the engine's family; the context's signal kills the child. */
  async execute(engineId: string, req: ExecuteRequest, ctx: EngineContext): Promise<EngineOutputs> {
    const pool = this.pool(familyOf(engineId));
    const task = this.task(engineId, req, ctx.deadline, ctx.tmpDir);
    const job: ChildJob = {
      task,
      signal: ctx.signal,
      onMessage: (m: ChildMessage, reply) => {
        if (!('taskId' in m) || m.taskId !== task.taskId) return;
        switch (m.t) {
          case 'progress': ctx.progress(m.fraction, m.message); break;
          case 'delta': ctx.delta?.(String(m.text)); break;
          case 'log': ctx.log[m.level]?.(String(m.msg), m.data); break;
          case 'fetchMedia':
            ctx.fetchMedia(m.url, m.opts).then(
              (media) => reply({ t: 'media', id: m.id, bytes: media.bytes, contentType: media.contentType, url: media.url }),
              (err: unknown) => reply({ t: 'media', id: m.id, error: serializeError(err) }),
            );
            break;
        }
      },
    };
    let result: ChildResult;
    try {
      result = await pool.run(job);
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw err;
    }
    if (!result.ok) throw rebuildError(result.error);
    return normalizeOutputs(result.outputs);
  }

  /** Ends every child (and what it started) and fails tasks still waiting for one. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.memoryTimer);
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.close()));
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
