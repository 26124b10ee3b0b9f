import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError, placeFields } from '../../errors.js';
import { search } from '../../catalog/search.js';
import { pricingView } from '../../catalog/views.js';
import { estimateNodes } from '../../catalog/estimate.js';
import { bytesOfSource, MAX_UPLOAD_BYTES, storeUpload } from '../../files/upload.js';
import { answerCall, toolPlaces, type ToolAnswer } from '../result.js';
import { given, type ToolContext } from './context.js';
import { waitAndAnswer } from './runAnswer.js';
import { progressSender } from './runProgress.js';
import { MAX_BATCH_SIZE } from '../../runs/batches.js';

const anyObject = z.record(z.string(), z.unknown());
/** As many items as one batch takes (runs/batches.ts MAX_BATCH_SIZE). */
const MAX_BATCH = MAX_BATCH_SIZE;
/** Keys of a generate input that name the model rather than feed it. */
const MODEL_KEYS = new Set(['modelId', 'model_id', 'subModelId', 'nodeType', 'tool_name', 'input']);

/** A generate input: { modelId, ...model inputs } (the inputs may also come nested as `input`). */
function splitGenerateInput(input: Record<string, unknown>, fallbackModel?: string): { modelId: string; subModelId?: string; inputs: Record<string, unknown> } {
  const modelId = [input.modelId, input.model_id, input.nodeType, fallbackModel].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (!modelId) {
    throw new AppError('VALIDATION_ERROR', 'input.modelId is required: a sub-model id or nodeType from search_tools', { details: [{ path: 'input.modelId', message: 'is required' }] });
  }
  const nested = input.input !== null && typeof input.input === 'object' && !Array.isArray(input.input) ? (input.input as Record<string, unknown>) : {};
  const inputs: Record<string, unknown> = { ...nested };
  for (const [k, v] of Object.entries(input)) if (!MODEL_KEYS.has(k)) inputs[k] = v;
  return { modelId: modelId.trim(), subModelId: typeof input.subModelId === 'string' ? input.subModelId : undefined, inputs };
}

/** Starts one model run through the service POST /v1/nodes/{nodeType}/run uses (price, reserve, queue). */
async function startModelRun(ctx: ToolContext, modelId: string, subModelId: string | undefined, inputs: Record<string, unknown>) {
  // A sub-model id or a nodeType (a multi-mode model's default sub-model), as schema and pricing name models.
  const r = ctx.services.catalog.resolveModelId(modelId);
  const { run } = await ctx.services.nodeRuns.create({ accountId: ctx.accountId, keyId: ctx.principal.keyId, scope: ctx.principal.scope, nodeType: r.model.nodeType, subModelId: subModelId ?? r.subModelId, input: inputs });
  return { runId: run.id as string, status: run.status as string, modelId: (subModelId ?? r.subModelId ?? r.model.nodeType) as string, estimatedCredits: Number(run.estimated_microcredits) };
}

function startedAnswer(s: Awaited<ReturnType<typeof startModelRun>>): ToolAnswer {
  return {
    text: [`Run ID: ${s.runId}`, `Status: ${s.status}`, `Model: ${s.modelId}`, `Estimated credits: ${s.estimatedCredits} microcredits`,
      'Call get_run_status with this runId (runType "model") to wait for the result and its asset URLs.'].join('\n'),
    structured: { ...s, runType: 'model', assets: [] },
  };
}

/** An AppError, or the refusal an engine input check gives, as the tool error a model can act on. */
export function registerGenerationTools(server: McpServer, ctx: ToolContext): void {
  const { services } = ctx;
  const call = (fn: () => Promise<ToolAnswer>) => answerCall(fn, ctx.log);

  server.registerTool('search_tools', {
    description: 'Find models to generate with. category is a catalog category (image, video, audio, text, text-to-speech, transcription, lipsync, …) or a keyword; omit it for the whole catalog. Returns model ids for get_model_schema, get_pricing and execute_tool (tool_name "generate", input.modelId).',
    inputSchema: { category: z.string().max(200).optional(), query: z.string().max(200).optional().describe('Keyword filter (used when category is not given)') },
  }, ({ category, query }) => call(async () => {
    const found = search(services.catalog, given(category) ?? given(query));
    if ('noMatch' in found) {
      return { text: `${found.noMatch}`, structured: { models: [], modelIds: [], noMatch: found.noMatch, categoryRoleHints: found.categoryRoleHints } };
    }
    const models = Object.entries(found.modelCatalog).flatMap(([cat, list]) => list.map((m) => ({ ...m, category: cat })));
    const lines = Object.entries(found.modelCatalog).flatMap(([cat, list]) => [`${cat}:`, ...list.map((m) => `- ${m.modelId}: ${m.name}${m.available ? '' : ' (unavailable on this server)'}`)]);
    return { text: lines.join('\n'), structured: { models, modelIds: models.map((m) => m.modelId), categories: Object.keys(found.modelCatalog) } };
  }));

  server.registerTool('get_pricing', {
    description: 'What a model costs, in microcredits (1,000,000 = 1 credit): its pricing rule with worked examples, and estimateMicrocredits, the exact price of input (or of the defaults without it) from the function that charges runs.',
    inputSchema: { modelId: z.string().min(1).max(100), input: anyObject.optional().describe('Model inputs to price') },
  }, ({ modelId, input }) => call(async () => {
    const r = services.catalog.resolveModelId(modelId);
    const view = pricingView(services.catalog, r);
    // One number to read: the price of this input, or of the model's defaults when none is given.
    const estimate = estimateNodes(services.catalog, [{ type: r.model.nodeType, subModelId: r.subModelId, data: input ?? {} }], 'input')[0]!.microcredits;
    const structured = { ...view, estimateMicrocredits: estimate };
    return { text: `${view.modelId}: ${view.summary}\n${input ? 'This input' : 'A run with the default inputs'} costs ${estimate} microcredits.\n${JSON.stringify(structured)}`, structured };
  }));

  server.registerTool('execute_tool', {
    description: 'Run a model. tool_name "generate": input is { modelId, ...the model\'s inputs } (see get_model_schema). tool_name "batch_execute": input is { items: [generate inputs] } (at most 100), each its own run, each counted against your rate limit; items of one model are one batch, priced and held together (all start or none). Any other tool_name is a model or utility id (merge_videos, extract_audio, crop_image, …) run with input. Answers the run id; call get_run_status to wait for the result.',
    inputSchema: { tool_name: z.string().min(1).max(100), input: anyObject.optional() },
  }, ({ tool_name, input }) => call(async () => {
    const args = input ?? {};
    const name = tool_name.trim();
    if (name === 'batch_execute') return batchExecute(ctx, args);
    if (name !== 'generate') {
      // A utility or model by its own name (which wins over a stray modelId in its input).
      try {
        services.catalog.resolveModelId(name);
      } catch (err) {
        if (err instanceof AppError && err.code === 'MODEL_NOT_FOUND') {
          throw new AppError('MODEL_NOT_FOUND', `tool_name "${name}" is neither generate, batch_execute nor a model or utility id; search_tools lists the ids`);
        }
        throw err;
      }
    }
    const { modelId, subModelId, inputs } = splitGenerateInput(args, name === 'generate' ? undefined : name);
    return startedAnswer(await startModelRun(ctx, name === 'generate' ? modelId : name, subModelId, inputs));
  }));

  server.registerTool('get_run_status', {
    description: `Status and result of a run: waits for it to finish (up to ${services.config.mcpRunWaitSeconds} s), then answers the outputs and asset URLs, or "still running" with progress and the tokens an LLM has streamed so far (call again). Give _meta.progressToken to get notifications/progress with the token count while it waits.`,
    inputSchema: {
      runId: z.string().min(1).max(100),
      runType: z.enum(['model', 'workflow']).optional().describe('model (execute_tool) or workflow (start_run); found from the run when omitted'),
      waitSeconds: z.number().int().min(0).max(300).optional().describe(`At most ${services.config.mcpRunWaitSeconds}`),
    },
  }, ({ runId, waitSeconds }, extra) => call(() => waitAndAnswer(ctx, runId.trim(), Math.min(waitSeconds ?? services.config.mcpRunWaitSeconds, services.config.mcpRunWaitSeconds), progressSender(extra))));

  server.registerTool('upload_file', {
    description: `Store an image, audio or video file (at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB) and get a URL of this service to pass as a model or workflow input. Give url (https, fetched by the server), or data as a data: URI or base64.`,
    inputSchema: {
      url: z.string().max(10_000_000).optional().describe('https URL, or a data: URI'),
      data: z.string().max(40_000_000).optional().describe('data: URI or plain base64'),
      base64: z.string().max(40_000_000).optional(),
      filename: z.string().max(200).optional(),
      contentType: z.string().max(100).optional(),
      mimeType: z.string().max(100).optional(),
    },
  }, (a) => call(async () => {
    // The same rules and service as POST /v1/files (src/files/upload.ts, src/files/ingest.ts).
    const { bytes, path } = await bytesOfSource(a, {
      files: services.files, accountId: ctx.accountId, publicUrl: services.publicUrl,
      allowPrivate: services.config.allowPrivateUrls, timeoutMs: services.config.mediaTimeoutMs, maxBytes: MAX_UPLOAD_BYTES,
    });
    const file = await storeUpload(services.files, services.db, ctx.accountId, { data: bytes, declaredType: a.contentType ?? a.mimeType, filename: a.filename }, path);
    const view = await services.files.view(file);
    const structured = {
      id: file.id, url: services.files.stableUrl(file), signedUrl: view.url, contentType: file.contentType, bytes: file.bytes,
      ...(file.filename ? { filename: file.filename } : {}),
      ...(file.width !== null ? { width: file.width } : {}), ...(file.height !== null ? { height: file.height } : {}),
      ...(file.durationSeconds !== null ? { durationSeconds: file.durationSeconds } : {}),
      ...(file.expiresAt ? { expiresAt: file.expiresAt.toISOString() } : {}),
    };
    return { text: `Uploaded ${file.contentType}, ${file.bytes} bytes.\nURL: ${structured.url}\nUse this URL as a model or workflow input.`, structured };
  }));

  server.registerTool('get_generations', {
    description: 'Your generated media (run outputs), newest first. Pass nextCursor back as cursor for the next page.',
    inputSchema: {
      cursor: z.string().max(500).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      mediaType: z.enum(['image', 'audio', 'video']).optional(),
    },
  }, (a) => call(async () => {
    const page = await services.files.list(ctx.accountId, { source: 'output', cursor: given(a.cursor), limit: a.limit ?? 20, kind: a.mediaType });
    const generations = await Promise.all(page.files.map(async (f) => {
      const v = await services.files.view(f);
      return { ...v, stableUrl: services.files.stableUrl(f), runId: f.runId, createdAt: f.createdAt.toISOString() };
    }));
    const lines = generations.map((g) => `- ${g.url} (${g.contentType}, run ${g.runId}, ${g.createdAt})`);
    return {
      text: [`${generations.length} generation(s)${page.nextCursor ? `; more with cursor ${page.nextCursor}` : ''}`, ...lines].join('\n'),
      structured: { generations, nextCursor: page.nextCursor },
    };
  }));
}

/**
 * Several generate inputs, each its own run; every run after the first is counted against the key. When
 * all the admitted items name one model they are one batch (runs/batches.ts, issue 29): priced together,
 * held at once (all or nothing) and followed by one batch record; items of several models start one by one.
 */
async function batchExecute(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolAnswer> {
  const items = [args.items, args.requests, args.batch].find(Array.isArray) as unknown[] | undefined;
  if (!items || items.length === 0) throw new AppError('VALIDATION_ERROR', 'input.items must be a non-empty list of generate inputs', { details: [{ path: 'input.items', message: 'is required' }] });
  if (items.length > MAX_BATCH) throw new AppError('VALIDATION_ERROR', `input.items holds at most ${MAX_BATCH} runs; got ${items.length}`, { details: [{ path: 'input.items', message: `at most ${MAX_BATCH}` }] });
  // This call was admitted for its first run; the others ask the key's limit now, in one count.
  const admitted = await Promise.all(items.map((_, i) => (i === 0 ? undefined : ctx.meter.admit())));
  const failure = (index: number, err: unknown) => {
    if (!(err instanceof AppError)) ctx.log(err);
    const placed = placeFields(err, toolPlaces);
    const e = placed instanceof AppError ? placed : new AppError('INTERNAL', 'Internal error');
    return { index, error: `${e.code}: ${e.message}`, code: e.code };
  };
  type Parsed = { index: number; modelId: string; subModelId?: string; inputs: Record<string, unknown> };
  const parsed = items.map((item, index): Parsed | ReturnType<typeof failure> => {
    try {
      if (admitted[index]) throw admitted[index];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new AppError('VALIDATION_ERROR', `input.items[${index}] must be an object { modelId, ...inputs }`);
      return { index, ...splitGenerateInput(item as Record<string, unknown>) };
    } catch (err) {
      return failure(index, err);
    }
  });
  const ok = parsed.filter((p): p is Parsed => 'inputs' in p);
  const first = ok[0];
  let batchId: string | undefined;
  let runs: Array<{ index: number } & Record<string, unknown>>;
  if (first && ok.length > 1 && ok.every((p) => p.modelId === first.modelId && p.subModelId === first.subModelId)) {
    let started: Map<number, Record<string, unknown>>;
    try {
      const r = ctx.services.catalog.resolveModelId(first.modelId);
      const subModelId = first.subModelId ?? r.subModelId;
      const { batch } = await ctx.services.batches.create({
        accountId: ctx.accountId, keyId: ctx.principal.keyId, scope: ctx.principal.scope, nodeType: r.model.nodeType, subModelId, inputs: ok.map((p) => p.inputs),
      });
      batchId = batch.id;
      started = new Map(ok.map((p, i) => [p.index, {
        runId: batch.runs[i]!.runId, status: 'QUEUED', modelId: (subModelId ?? r.model.nodeType) as string, estimatedCredits: batch.runs[i]!.estimatedCredits,
      }]));
    } catch (err) {
      // One batch, one answer: what refused it refused every item.
      started = new Map(ok.map((p) => [p.index, failure(p.index, err)]));
    }
    runs = parsed.map((p) => {
      const s = started.get(p.index);
      return s ? { ...s, index: p.index } : p;
    });
  } else {
    runs = await Promise.all(parsed.map(async (p) => {
      if (!('inputs' in p)) return p;
      try {
        return { index: p.index, ...(await startModelRun(ctx, p.modelId, p.subModelId, p.inputs)) };
      } catch (err) {
        return failure(p.index, err);
      }
    }));
  }
  const count = runs.filter((r) => 'runId' in r).length;
  return {
    text: [`${count} of ${items.length} runs started${batchId ? ` as batch ${batchId} (one hold for all; GET /v1/batches/${batchId} for its progress)` : ''}.`,
      ...runs.map((r) => ('runId' in r ? `- [${r.index}] Run ID: ${r.runId} (${r.modelId}) ${r.status}` : `- [${r.index}] not started: ${r.error}`)),
      'Call get_run_status with each runId to wait for its result.'].join('\n'),
    structured: { runs, started: count, failed: items.length - count, ...(batchId ? { batchId } : {}) },
    ...(count === 0 ? { isError: true } : {}),
  };
}
