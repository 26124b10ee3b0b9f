import { createRequire } from 'node:module';
import path from 'node:path';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { ggufProblem, listGgufFiles, llmModelsDir } from './modelFiles.js';

/**
 * Text generation with llama.cpp through node-llama-cpp, on the CPU, with any GGUF model the operator
 * placed in MODELS_DIR/llm. Inference runs on llama.cpp's native threads (the event loop stays free);
 * LLAMA_THREADS sets how many (default 1, as the service shares a small machine with other engines).
 * One model stays loaded between runs; each run gets its own context, disposed afterwards.
 */
let llamaPromise: Promise<Llama> | undefined;
let loaded: { path: string; model: Promise<LlamaModel>; users: number } | undefined;

function threads(): number {
  const n = Number(process.env.LLAMA_THREADS ?? 1);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

async function llama(): Promise<Llama> {
  if (!llamaPromise) {
    llamaPromise = import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
      // build: 'never' — use the prebuilt CPU binary from npm; never download or compile at run time.
      getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: LlamaLogLevel.error }),
    );
    llamaPromise.catch(() => {
      llamaPromise = undefined;
    });
  }
  return llamaPromise;
}

/** The loaded model for a file, loading it (and unloading another one when idle) as needed. */
async function acquireModel(file: string): Promise<{ model: LlamaModel; release: () => void }> {
  if (loaded?.path !== file) {
    const previous = loaded;
    if (previous && previous.users === 0) void previous.model.then((m) => m.dispose()).catch(() => {});
    const problem = ggufProblem(file);
    if (problem) throw new EngineError(`could not load the model ${path.basename(file)}: ${problem}`);
    const l = await llama();
    loaded = { path: file, model: l.loadModel({ modelPath: file }), users: 0 };
    loaded.model.catch(() => {
      if (loaded?.path === file) loaded = undefined;
    });
  }
  const entry = loaded;
  entry.users++;
  try {
    const model = await entry.model;
    return {
      model,
      release: () => {
        entry.users--;
        // A model replaced while this run used it is freed by its last user.
        if (entry !== loaded && entry.users === 0) void entry.model.then((m) => m.dispose()).catch(() => {});
      },
    };
  } catch (e) {
    entry.users--;
    throw new EngineError(`could not load the model ${path.basename(file)}: ${(e as Error).message}`);
  }
}

/** Frees the native library (tests and shutdown). */
export async function closeLlama(): Promise<void> {
  const l = loaded;
  loaded = undefined;
  if (l) await l.model.then((m) => m.dispose()).catch(() => {});
  const lp = llamaPromise;
  llamaPromise = undefined;
  if (lp) await lp.then((x) => x.dispose()).catch(() => {});
}

/**
 * The engine over the GGUF files in `dirOf()` (read at each call, so new files count after a restart of
 * the catalog). The service passes the folder its catalog lists sub-models from, so the two always agree.
 */
export function createLlamaCppEngine(dirOf: () => string = () => llmModelsDir()): Engine {
  return {
    id: 'llama-cpp',
    requirements: ['npm: node-llama-cpp with @node-llama-cpp/linux-x64 (prebuilt CPU binary)', 'a GGUF model file in MODELS_DIR/llm/'],

    async availability() {
      try {
        createRequire(import.meta.url).resolve('node-llama-cpp');
      } catch {
        return { available: false, reason: 'the npm package node-llama-cpp is not installed: run npm ci' };
      }
      const dir = dirOf();
      if (listGgufFiles(dir).length === 0) {
        return { available: false, reason: `no GGUF model in ${dir}: put a .gguf file there (each file becomes a sub-model) and restart; nothing is downloaded` };
      }
      return { available: true };
    },

    async execute(req, ctx) {
      const dir = dirOf();
      const files = listGgufFiles(dir);
      const chosen = req.options.file ? files.find((f) => f.file === req.options.file) : files[0];
      if (!chosen) throw new EngineError(req.options.file ? `the model file ${String(req.options.file)} is no longer in ${dir}` : `no GGUF model in ${dir}`);
      const prompt = String(req.input.prompt ?? '');
      if (!prompt.trim()) throw new EngineInputError('prompt is empty');
      const system = req.input.system ? String(req.input.system) : undefined;
      const maxTokens = Math.max(1, Math.min(8192, Math.round(Number(req.input.max_tokens ?? 256))));
      const temperature = Number(req.input.temperature ?? 0.7);
      const seed = req.input.seed === undefined ? undefined : Number(req.input.seed);

      ctx.progress(0.05, `loading ${chosen.file}`);
      const { model, release } = await acquireModel(path.join(dir, chosen.file));
      try {
        const { LlamaChatSession } = await import('node-llama-cpp');
        const promptTokens = model.tokenize(`${system ?? ''}\n${prompt}`).length;
        // Enough room for the chat-formatted prompt and the answer, within what the model was trained on.
        const contextSize = Math.min(model.trainContextSize, Math.max(512, promptTokens + maxTokens + 256));
        if (promptTokens + 16 > model.trainContextSize) {
          throw new EngineInputError(`the prompt is about ${promptTokens} tokens; this model's context holds ${model.trainContextSize}`);
        }
        const context = await model.createContext({ contextSize, threads: threads() });
        try {
          const session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: system });
          let generated = 0;
          ctx.progress(0.1, 'generating');
          const answer = await session.promptWithMeta(prompt, {
            maxTokens,
            temperature,
            seed,
            signal: ctx.signal,
            // The answer's text as it is made, for the run's event stream (run.output.delta).
            onTextChunk: (text) => ctx.delta?.(text),
            onToken: (tokens) => {
              generated += tokens.length;
              ctx.progress(0.1 + 0.9 * Math.min(1, generated / maxTokens), `${generated} tokens`);
            },
          });
          ctx.progress(1, 'done');
          return {
            output: { kind: 'text', text: answer.responseText },
            usage: { kind: 'json', value: { model: chosen.file, promptTokens, completionTokens: generated, stopReason: answer.stopReason } },
          };
        } finally {
          await context.dispose();
        }
      } catch (e) {
        if (ctx.signal.aborted) throw new EngineError('generation was aborted');
        throw e;
      } finally {
        release();
      }
    },
  };
}

/** The engine over MODELS_DIR/llm as the environment names it (tests, and anything without a config). */
export const llamaCppEngine: Engine = createLlamaCppEngine();
