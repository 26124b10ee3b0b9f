import fs from 'node:fs';
import path from 'node:path';
import { FakeServer } from './providers/server.js';

/**
 * A test-only slow model that runs for real through the OpenAI-compatible adapter: an operator model
 * (`atelier.models.json`) bound to a loopback fake whose chat completions are each held until the test
 * releases them. `started` lists prompts in the order their runs reached the engine, so tests assert
 * order (who started first) rather than time.
 */
export interface GatedModel {
  fake: FakeServer;
  /** Prompts in the order their requests arrived. */
  started: string[];
  /** Lets the held request with this prompt answer. */
  release(prompt: string): void;
  releaseAll(): void;
  /** Resolves once `n` requests have arrived. */
  waitForStarted(n: number, timeoutMs?: number): Promise<string[]>;
  close(): Promise<void>;
}

export const GATED_NODE_TYPE = 'gated_chat';

export async function startGatedModel(dataDir: string): Promise<GatedModel> {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const released = new Set<string>();
  const fake = new FakeServer(async (req) => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return { status: 404, json: { error: { message: 'not here' } } };
    const body = req.json();
    const prompt = String(body.messages?.at(-1)?.content ?? '');
    started.push(prompt);
    if (!released.has(prompt)) await new Promise<void>((resolve) => gates.set(prompt, resolve));
    return {
      json: {
        id: 'chatcmpl-gated', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `done: ${prompt}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      },
    };
  });
  await fake.start();
  process.env.OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.OPENAI_API_KEY = 'sk-gated';
  fs.writeFileSync(path.join(dataDir, 'atelier.models.json'), JSON.stringify({
    models: [{
      nodeType: GATED_NODE_TYPE, name: 'Gated chat (test)', description: 'Answers when the test lets it', category: 'llm',
      modes: [{
        subModelId: 'gated-chat', label: 'Chat', category: 'text-generation', fields: ['prompt'],
        pricing: { kind: 'flat', microcredits: 1000 },
        engine: { engine: 'openai', options: { operation: 'chat', model: 'gpt-test', stream: false } },
      }],
    }],
  }));
  const release = (prompt: string) => {
    released.add(prompt);
    gates.get(prompt)?.();
    gates.delete(prompt);
  };
  return {
    fake,
    started,
    release,
    releaseAll() {
      for (const p of [...gates.keys()]) release(p);
    },
    async waitForStarted(n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (started.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${started.length} of ${n} gated runs started: ${started.join(', ')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return [...started];
    },
    async close() {
      for (const p of [...gates.keys()]) release(p);
      await fake.close();
    },
  };
}
