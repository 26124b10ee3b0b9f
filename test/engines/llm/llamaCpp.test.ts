import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { llmModels } from '../../../src/catalog/models/localLlm.js';
import { llmEngines } from '../../../src/engines/local/llm/index.js';
import { closeLlama, llamaCppEngine } from '../../../src/engines/local/llm/llamaCpp.js';
import { listGgufFiles, subModelIdFor } from '../../../src/engines/local/llm/modelFiles.js';
import { EngineError, EngineInputError, type EngineOutputs } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertCatalogMatchesEngines } from '../audio/catalogCheck.js';
import { writeTinyGguf } from './ggufFixture.js';

// A models folder of our own, holding a random-weight GGUF written by the fixture (no download).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-llm-test-'));
const llmDir = path.join(root, 'llm');
const savedEnv = process.env.MODELS_DIR;

before(() => {
  process.env.MODELS_DIR = root;
});
after(async () => {
  await closeLlama();
  if (savedEnv === undefined) delete process.env.MODELS_DIR;
  else process.env.MODELS_DIR = savedEnv;
  fs.rmSync(root, { recursive: true, force: true });
});

async function generate(input: Record<string, unknown>, opts: { signal?: AbortSignal; file?: string } = {}): Promise<{ out: EngineOutputs; progress: Array<[number, string | undefined]>; deltas: string[] }> {
  const { ctx, progress, cleanup } = testContext({ signal: opts.signal });
  const deltas: string[] = [];
  ctx.delta = (text) => deltas.push(text);
  try {
    const out = await llamaCppEngine.execute({ nodeType: 'llama_cpp', subModelId: 'x', input, options: opts.file ? { file: opts.file } : {} }, ctx);
    return { out, progress, deltas };
  } finally {
    cleanup();
  }
}

test('with no GGUF file the model is listed but unavailable, with the reason', async () => {
  const a = await llamaCppEngine.availability();
  assert.equal(a.available, false);
  assert.match(a.reason!, /no GGUF model in .*llm/);
  const [model] = llmModels(process.env);
  assert.equal(model!.nodeType, 'llama_cpp');
  assert.deepEqual(model!.modes.map((m) => m.subModelId), ['llama-cpp']);
  await assert.rejects(generate({ prompt: 'hi' }), EngineError);
});

test('each GGUF file becomes a sub-model with a kebab-case id', () => {
  fs.mkdirSync(llmDir, { recursive: true });
  writeTinyGguf(path.join(llmDir, 'Tiny_Random v1.gguf'), { seed: 1 });
  writeTinyGguf(path.join(llmDir, 'other.GGUF'), { seed: 2 });
  fs.writeFileSync(path.join(llmDir, 'notes.txt'), 'not a model');
  assert.deepEqual(listGgufFiles(llmDir).map((g) => [g.file, g.subModelId]), [
    ['Tiny_Random v1.gguf', 'llama-cpp-tiny-random-v1'],
    ['other.GGUF', 'llama-cpp-other'],
  ]);
  assert.equal(subModelIdFor('Qwen2.5-0.5B-Instruct-Q4_K_M.gguf'), 'llama-cpp-qwen2.5-0.5b-instruct-q4-k-m');
  const models = llmModels(process.env);
  assertCatalogMatchesEngines(models, llmEngines);
  assert.deepEqual(models[0]!.modes.map((m) => [m.subModelId, m.engine.options]), [
    ['llama-cpp-tiny-random-v1', { file: 'Tiny_Random v1.gguf' }],
    ['llama-cpp-other', { file: 'other.GGUF' }],
  ]);
});

test('llama.cpp loads the random-weight GGUF and generates tokens; a seed makes it repeatable', async () => {
  assert.deepEqual(await llamaCppEngine.availability(), { available: true });
  const input = { prompt: 'hello world, say one two three', system: 'You are a test.', max_tokens: 24, temperature: 0.8, seed: 7 };
  const started = Date.now();
  const { out, progress, deltas } = await generate(input, { file: 'Tiny_Random v1.gguf' });
  console.log(`generated in ${Date.now() - started} ms (load + 24 tokens)`);
  const text = (out.output as { kind: 'text'; text: string }).text;
  assert.equal(typeof text, 'string');
  const usage = (out.usage as { value: { completionTokens: number; stopReason: string; model: string } }).value;
  assert.ok(usage.completionTokens > 0, 'tokens were generated');
  assert.equal(usage.model, 'Tiny_Random v1.gguf');
  assert.ok(progress.some(([, m]) => m?.endsWith('tokens')), 'progress reports tokens');
  // Streamed as it is made (issue 28): the text chunks given to ctx.delta are the answer.
  assert.ok(deltas.length > 0, 'text chunks were streamed');
  assert.equal(deltas.join(''), text);
  const again = await generate(input, { file: 'Tiny_Random v1.gguf' });
  assert.equal((again.out.output as { text: string }).text, text, 'same seed, same text');
  // Another file: the engine swaps the loaded model.
  const other = await generate({ ...input, max_tokens: 8 }, { file: 'other.GGUF' });
  assert.ok((other.out.usage as { value: { completionTokens: number } }).value.completionTokens > 0);
});

test('an aborted run stops, and a corrupt model file is a clear error', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(generate({ prompt: 'hello', max_tokens: 200, seed: 1 }, { signal: ac.signal, file: 'other.GGUF' }), /abort/);
  await assert.rejects(generate({ prompt: '   ' }, { file: 'other.GGUF' }), EngineInputError);
  fs.writeFileSync(path.join(llmDir, 'broken.gguf'), Buffer.from('GGUF is not really the start of a model file, only of this sentence.'));
  await assert.rejects(generate({ prompt: 'hello' }, { file: 'broken.gguf' }), /could not load the model broken\.gguf: unsupported GGUF version/);
  // A truncated download: sound header, metadata cut short. node-llama-cpp alone would never return here.
  fs.writeFileSync(path.join(llmDir, 'truncated.gguf'), fs.readFileSync(path.join(llmDir, 'other.GGUF')).subarray(0, 3000));
  await assert.rejects(generate({ prompt: 'hello' }, { file: 'truncated.gguf' }), /corrupt metadata/);
});
