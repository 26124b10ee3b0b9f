import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Queryable } from '../db/pool.js';
import type { Catalog } from '../catalog/catalog.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Engine, EngineContext, EngineOutputs, ExecuteRequest, FetchMediaOptions, Media, OutputValue } from '../engines/types.js';
import type { RouteCircuits } from '../catalog/routeCircuits.js';
import { runOnRoutes, type RouteReport } from './routing.js';
import type { FileService } from '../files/service.js';
import type { StoredOutput } from '../files/render.js';
import { statSync } from 'node:fs';
import { engineKind } from '../catalog/engineKinds.js';
import type { EnginePools } from './pools.js';
import type { Permits, RemoteLane } from './remoteLane.js';
import { outputBytes } from './limits.js';
import { RunFailure } from './failure.js';
import { resultMetadata, type StoredFileFacts } from './resultMetadata.js';
import { engineCall, traceLogFields } from '../tracing/tracing.js';

export interface EngineJob {
  accountId: string;
  nodeType: string;
  subModelId: string | null;
  input: Record<string, unknown>;
  signal: AbortSignal;
  deadline: number;
  tmpDir: string;
  logContext: Record<string, unknown>;
  /** Throttled by the caller's storage; called with 0..1 and a short message. */
  onProgress(fraction: number, message: string | undefined): void;
  /** Where the engine's partial output goes (events/outputDeltas.ts), flushed before run() returns. */
  deltas?: { push(text: string): void; flush(): Promise<void> };
  /** A routed mode (catalog/routes.ts): told which route served the run, or why each failed (execution/routing.ts). */
  onRoute?(report: RouteReport): void;
}

/**
 * Runs one model through its engine (standalone runs and workflow nodes alike) and turns engine outputs
 * into stored outputs: files go to the artifact store and are kept as `{ file: id }` references.
 */
export class EngineRunner {
  constructor(
    private readonly catalog: Catalog,
    private readonly engines: EngineRegistry,
    private readonly files: FileService,
    private readonly log: Logger,
    private readonly fetchMediaFor: (accountId: string, signal: AbortSignal) => (url: string, opts?: FetchMediaOptions) => Promise<Media>,
    private readonly pools: EnginePools,
    /** Attempts when the engine's process dies (the same input crashing this often fails the run). */
    private readonly crashAttempts = 2,
    /** Remote engines run here, in this process, bounded by the lane's permits instead of a CPU slot; none: in a child like the rest. */
    private readonly remote?: { lane: RemoteLane; maxOutputBytes: number },
    /** The worker's CPU slots (ATELIER_WORKER_CONCURRENCY): a local engine call holds one while it runs. */
    private readonly cpu?: Permits,
    /** The routes' circuits shared by every worker; without them routes are tried in order with no memory. */
    private readonly circuits?: RouteCircuits,
  ) {}

  async run(job: EngineJob): Promise<EngineOutputs> {
    // The engine's log lines arrive over the child's channel, outside the caller's span: they take its trace ids here.
    job = { ...job, logContext: { ...job.logContext, ...traceLogFields() } };
    const { mode } = this.catalog.resolveNode(job.nodeType, job.subModelId, { requireSubModel: false });
    const engine = this.engines.get(mode.engine.engine);
    if (!engine) throw new Error(`engine ${mode.engine.engine} is not available in this worker`);
    let lastProgress = 0;
    const ctx: EngineContext = {
      signal: job.signal,
      deadline: job.deadline,
      tmpDir: job.tmpDir,
      log: {
        debug: (msg, data) => this.log.debug({ ...job.logContext, ...data }, msg),
        info: (msg, data) => this.log.info({ ...job.logContext, ...data }, msg),
        warn: (msg, data) => this.log.warn({ ...job.logContext, ...data }, msg),
      },
      progress: (fraction, message) => {
        // At most two writes a second: progress is for people watching, not a log.
        const now = Date.now();
        if (now - lastProgress < 500 && fraction < 1) return;
        lastProgress = now;
        job.onProgress(Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0)), message?.slice(0, 200));
      },
      fetchMedia: this.fetchMediaFor(job.accountId, job.signal),
      ...(job.deltas ? { delta: (text: string) => job.deltas!.push(text) } : {}),
    };
    const dispatch = (e: Engine, options: Record<string, unknown>) => this.dispatch(e, { nodeType: job.nodeType, subModelId: mode.subModelId, input: job.input, options }, ctx, job);
    if (mode.routes?.length) {
      return runOnRoutes(mode, job.input, {
        availability: (r) => this.engines.availability(r.engine.engine, r.engine.options),
        circuits: this.circuits,
        signal: job.signal,
        onReport: job.onRoute,
        call: (r) => {
          const routed = this.engines.get(r.engine.engine);
          if (!routed) throw new Error(`engine ${r.engine.engine} is not available in this worker`);
          return dispatch(routed, r.engine.options ?? {});
        },
      });
    }
    return dispatch(engine, mode.engine.options ?? {});
  }

  /**
   * Room for a run of this model to go straight to its provider in this process now: one remote engine (not
   * a routed mode, whose route is chosen at run time), available, with room on the remote lane. Answers the
   * function that gives the room back (RemoteLane.promiseRoom), or undefined.
   */
  promiseRemoteRoom(nodeType: string, subModelId: string | null): (() => void) | undefined {
    if (!this.remote) return undefined;
    let engineId: string;
    try {
      const { mode } = this.catalog.resolveNode(nodeType, subModelId, { requireSubModel: false });
      if (mode.routes?.length) return undefined;
      engineId = mode.engine.engine;
    } catch {
      return undefined;
    }
    if (engineKind(engineId) !== 'remote' || this.engines.get(engineId) === undefined) return undefined;
    return this.remote.lane.promiseRoom(engineId);
  }

  /** One engine call: a remote one in this process on the remote lane, a local one in a child holding a CPU slot. */
  private async dispatch(engine: Engine, req: ExecuteRequest, ctx: EngineContext, job: EngineJob): Promise<EngineOutputs> {
    if (this.remote && engineKind(engine.id) === 'remote') {
      const remote = this.remote;
      try {
        return await engineCall({ model: job.nodeType, subModel: req.subModelId, engine: engine.id, options: req.options, attempt: 1 }, () => this.runRemote(engine, req, ctx, remote));
      } finally {
        await job.deltas?.flush(); // every delta is out before the caller settles the run, as in runLocal
      }
    }
    const freeCpu = this.cpu ? await this.cpu.acquire(job.signal) : undefined;
    try {
      return await this.runLocal(engine, req, ctx, job);
    } finally {
      freeCpu?.();
    }
  }

  private async runLocal(engine: Engine, req: ExecuteRequest, ctx: EngineContext, job: EngineJob): Promise<EngineOutputs> {
    // The run's scratch folder (the leased task removes it when the run ends).
    await fs.promises.mkdir(ctx.tmpDir, { recursive: true });
    // The engine runs in a child process (pools.ts); a child that dies is one failed attempt, retried a
    // bounded number of times on a fresh child before the run fails.
    for (let attempt = 1; ; attempt++) {
      try {
        const outputs = await engineCall({ model: job.nodeType, subModel: req.subModelId, engine: engine.id, options: req.options, attempt }, () => this.pools.execute(engine.id, req, ctx));
        // Every delta is out before the caller settles the run: a stream sees them before the final record.
        await job.deltas?.flush();
        return outputs;
      } catch (err) {
        await job.deltas?.flush(); // what streamed before a failure still comes before the run's end
        if (!(err instanceof RunFailure) || err.code !== 'ENGINE_CRASHED' || job.signal.aborted) throw err;
        this.log.warn({ ...job.logContext, attempt, err: err.message }, 'engine process died');
        if (attempt >= this.crashAttempts) {
          throw new RunFailure('ENGINE_CRASHED', `${err.message} (${attempt} attempt${attempt === 1 ? '' : 's'})`);
        }
      }
    }
  }

  /**
   * A remote adapter's call, in this process: it only waits on the network, so a child process per call
   * (tens of MiB each) would bound a worker to a few dozen calls, while here one costs a promise, a socket
   * and its answer (bench "in-flight"). The output limit a child enforces is enforced here the same way.
   */
  private async runRemote(engine: Engine, req: ExecuteRequest, ctx: EngineContext, remote: { lane: RemoteLane; maxOutputBytes: number }): Promise<EngineOutputs> {
    const outputs = await remote.lane.run(engine.id, ctx.signal, () => engine.execute(req, { ...ctx, maxOutputBytes: remote.maxOutputBytes }));
    const size = outputBytes(outputs, (file) => statSync(file).size);
    if (size > remote.maxOutputBytes) {
      throw new RunFailure('OUTPUT_TOO_LARGE', `the output is ${size} bytes, over this server's limit of ${remote.maxOutputBytes} bytes per run (ATELIER_MAX_OUTPUT_BYTES)`);
    }
    return outputs;
  }

  /** True when storing these outputs writes files (EngineRunner.store): more than rows in the caller's transaction. */
  static writesFiles(outputs: EngineOutputs): boolean {
    return Object.values(outputs).some((v) => (Array.isArray(v) ? v.some((x) => x.kind === 'file') : v.kind === 'file'));
  }

  /**
   * Saves file outputs (rows in the caller's transaction) and returns what the run stores. A `result` list
   * of images gets `resultMetadata` beside it (execution/resultMetadata.ts), naming the mode that ran.
   */
  async store(tx: Queryable, accountId: string, runId: string, outputs: EngineOutputs, ran?: { nodeType: string; subModelId: string | null }): Promise<StoredOutput> {
    const stored: StoredOutput = {};
    const saved = new Map<OutputValue, StoredFileFacts>();
    const one = async (v: OutputValue): Promise<unknown> => {
      switch (v.kind) {
        case 'file': {
          const rec = await this.files.save(tx, accountId, v, runId);
          saved.set(v, rec);
          return { file: rec.id };
        }
        case 'text': return v.text;
        case 'number':
        case 'boolean':
        case 'json': return v.value;
      }
    };
    for (const [name, value] of Object.entries(outputs)) stored[name] = Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value);
    const result = outputs.result;
    if (ran && Array.isArray(result) && outputs.resultMetadata === undefined) {
      const modelId = this.catalog.resolveNode(ran.nodeType, ran.subModelId, { requireSubModel: false }).mode.subModelId;
      const meta = resultMetadata(result.map((v) => saved.get(v)), modelId);
      if (meta) stored.resultMetadata = meta;
    }
    return stored;
  }
}
