import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { writeTinyGguf } from '../engines/llm/ggufFixture.js';

// MODELS_DIR given to the service's configuration only (not this process's environment): the catalog and
// the engine must look in the same folder, so the model is listed, available and runs.
const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-models-'));
let srv: TestServer;
before(async () => {
  fs.mkdirSync(path.join(modelsDir, 'llm'));
  writeTinyGguf(path.join(modelsDir, 'llm', 'tiny.gguf'), { seed: 3 });
  assert.equal(process.env.MODELS_DIR, undefined);
  srv = await startTestServer({ MODELS_DIR: modelsDir });
});
after(async () => {
  await srv.close();
  fs.rmSync(modelsDir, { recursive: true, force: true });
});

test('a GGUF file in the configured MODELS_DIR is listed, available and runs through the API', async () => {
  const u = await srv.user();
  const entry = (await srv.request('GET', '/v1/models', { key: u.key })).body.find((m: { nodeType: string }) => m.nodeType === 'llama_cpp');
  assert.equal(entry.available, true, entry.unavailableReason);
  const r = await srv.request('POST', '/v1/nodes/llama_cpp/run', { key: u.key, body: { input: { prompt: 'hello', max_tokens: 8, seed: 1 } } });
  assert.equal(r.status, 202, r.text);
  const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'COMPLETED', run.error);
  assert.equal(typeof run.output.output, 'string');
});
