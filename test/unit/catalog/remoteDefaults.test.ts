import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Catalog } from '../../../src/catalog/catalog.js';
import { models } from '../../../src/catalog/models/remote.js';

/**
 * Issue 28, provider finding 1: the catalog fills defaults into a run's input, and the OpenAI adapter sends
 * what it gets. A default the provider's contract does not need must therefore not be a catalog default:
 * gpt_5_4 sent `temperature: 0.7` on every run, which OpenAI's GPT-5 models refuse (only their own default
 * is accepted).
 */
const catalog = new Catalog(models, () => ({ available: true }));

test('gpt_5_4: a run that names no temperature sends none (no catalog default fills one in)', () => {
  const r = catalog.resolveNode('gpt_5_4', null);
  const input = catalog.validateInput(r.mode, { prompt: 'hi' }, { path: 'body.input' });
  assert.equal('temperature' in input, false, JSON.stringify(input));
});

test('other LLMs: temperature is sent only when the caller sets it', () => {
  for (const m of models.filter((x) => x.modes.some((mode) => mode.category === 'text-generation' || mode.category === 'multimodal-llm'))) {
    for (const mode of m.modes) {
      const input = catalog.validateInput(mode, { prompt: 'hi' }, { path: 'body.input' });
      assert.equal('temperature' in input, false, `${m.nodeType}: ${JSON.stringify(input)}`);
      if (mode.fields.some((f) => f.name === 'temperature')) {
        assert.equal(catalog.validateInput(mode, { prompt: 'hi', temperature: 0.3 }, { path: 'body.input' }).temperature, 0.3);
      }
    }
  }
});
