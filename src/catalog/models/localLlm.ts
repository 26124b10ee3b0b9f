import { listGgufFiles, llmModelsDir } from '../../engines/local/llm/modelFiles.js';
import { f } from '../fields.js';
import type { FieldSpec, ModeDef, ModelDef } from '../types.js';

/**
 * llama.cpp over the GGUF files an operator put in MODELS_DIR/llm/: one sub-model per file, found when
 * the catalog is built (restart to pick up new files). With no file the model is still listed, with one
 * placeholder mode, and the engine reports it unavailable with the reason.
 */
const fields = (): FieldSpec[] => [
  f.prompt({ description: 'The message to answer', maxLength: 32_000 }),
  f.text('system', 'System prompt: instructions for how to answer', { maxLength: 8000 }),
  f.integer('max_tokens', 'Most tokens to generate', { min: 1, max: 4096, default: 256 }),
  f.number('temperature', 'Randomness: 0 always picks the likeliest token, higher is more varied', { min: 0, max: 2, default: 0.7 }),
  f.seed(),
];

function mode(subModelId: string, label: string, description: string, options?: Record<string, unknown>): ModeDef {
  return {
    subModelId, label, category: 'text-generation', description,
    fields: fields(),
    outputs: [{ name: 'output', dataType: 'text' }, { name: 'usage', dataType: 'any' }],
    // Priced by size (prompt characters / 4 + max_tokens): the same rule whatever the model file.
    pricing: { kind: 'per_unit', unit: '1k_tokens', microcreditsPerUnit: 1000, inputField: 'prompt', minimum: 200 },
    engine: { engine: 'llama-cpp', ...(options ? { options } : {}) },
    timeoutSeconds: 600,
  };
}

export function llmModels(env: NodeJS.ProcessEnv = process.env): ModelDef[] {
  const dir = llmModelsDir(env);
  const files = listGgufFiles(dir);
  const modes = files.length
    ? files.map((g) => mode(g.subModelId, g.file, `${g.file} (${(g.bytes / 1e6).toFixed(0)} MB), run on the CPU by llama.cpp`, { file: g.file }))
    : [mode('llama-cpp', 'No model file yet', `Place a .gguf file in ${dir} and restart; each file becomes a sub-model`)];
  return [{
    nodeType: 'llama_cpp',
    name: 'llama.cpp (local GGUF models)',
    description: 'Chat-style text generation with llama.cpp on this server\'s CPU, using whatever GGUF language models the operator placed in MODELS_DIR/llm (one sub-model per file). Nothing is downloaded; quality and speed depend entirely on the model file.',
    category: 'llm', icon: 'cpu', accent: 'orange', provider: 'local',
    modes,
  }];
}

export const models: ModelDef[] = llmModels();
