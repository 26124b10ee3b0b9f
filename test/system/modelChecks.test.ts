import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/db.js';
import { spawnRole } from '../helpers/processes.js';

/**
 * Issue 19, availability proven: a model is listed available when its files are there, but only running
 * it proves its engine loads. A GGUF file that is not a model makes llama_cpp listed available; the
 * smoke check (`atelier doctor --models`, and the service at start) must report it failing.
 */
let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-model-checks-'));
  fs.mkdirSync(path.join(dir, 'models', 'llm'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'models', 'llm', 'broken.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(2048, 7)]));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('model smoke checks', () => {
  it('atelier doctor --models runs each available model and reports the one whose engine cannot load', async () => {
    const r = await runCli(['doctor', '--models', '--only', 'llama_cpp,word_count,qr_code,sfxr_sound_effects', '--json'], {
      DATA_DIR: dir, MODELS_DIR: path.join(dir, 'models'), DATABASE_URL: 'postgres://127.0.0.1:1/unused',
    });
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout) as { ok: boolean; results: Array<{ nodeType: string; subModelId: string | null; ok: boolean; error?: string }> };
    assert.equal(report.ok, false);
    const by = (t: string) => report.results.filter((x) => x.nodeType === t);
    assert.equal(by('word_count')[0]!.ok, true);
    assert.equal(by('qr_code')[0]!.ok, true);
    // Every sfxr preset is its own binding, and each ran.
    assert.equal(by('sfxr_sound_effects').length, 11);
    assert.ok(by('sfxr_sound_effects').every((x) => x.ok));
    const llm = by('llama_cpp');
    assert.equal(llm.length, 1);
    assert.equal(llm[0]!.ok, false);
    assert.match(llm[0]!.error!, /broken\.gguf/);
  });

  it('the service runs the same check at start in the background and logs the failure', async () => {
    const db = await freshDatabase();
    const proc = await spawnRole('worker', {
      DATABASE_URL: db.url, DATA_DIR: dir, MODELS_DIR: path.join(dir, 'models'), LOG_LEVEL: 'info',
      ATELIER_MODEL_SMOKE_AT_START: 'llama_cpp,word_count',
    });
    try {
      const deadline = Date.now() + 120_000;
      while (!/model check: /.test(proc.tail()) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
      const log = proc.tail();
      assert.match(log, /model check failed: llama_cpp/);
      assert.match(log, /model check: 1 of 2 available local models failed/);
    } finally {
      await proc.stop();
      await db.drop();
    }
  });
});
