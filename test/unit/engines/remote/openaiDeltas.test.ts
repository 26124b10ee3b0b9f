import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAIEngine } from '../../../../src/engines/remote/openai.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startOpenAIFake, type OpenAIFake } from '../../../helpers/providers/openai.js';
import { until } from '../../../helpers/poll.js';

// Issue 28 item 3: the chat adapter hands each streamed token to the context (ctx.delta) as it reads it,
// not after the answer ended; the whole text is still its output.
let fake: OpenAIFake;
let release!: () => void;
before(async () => {
  fake = await startOpenAIFake({ hold: () => ({ last: new Promise<void>((r) => (release = r)) }) });
});
after(() => fake.close());

test('chat: every streamed token goes to ctx.delta in order, the first before the provider sent its last', async () => {
  const t = testContext();
  after(t.cleanup);
  const deltas: string[] = [];
  t.ctx.delta = (text) => deltas.push(text);
  const engine = createOpenAIEngine({ baseUrl: `${fake.url}/v1`, allowPrivate: true });
  const p = engine.execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'gpt-test' } }, t.ctx);
  try {
    await until('a delta while the fake holds its last token', () => deltas.length > 0, 30_000);
  } finally {
    release();
  }
  const out = await p;
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello from the fake model.' });
  assert.deepEqual(deltas, ['Hello', ' from', ' the', ' fake', ' model', '.']);
});

test('chat without a stream to feed (no ctx.delta) answers as before', async () => {
  const t = testContext();
  after(t.cleanup);
  release = () => {};
  const other = await startOpenAIFake();
  try {
    const out = await createOpenAIEngine({ baseUrl: `${other.url}/v1`, allowPrivate: true }).execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'gpt-test' } }, t.ctx);
    assert.deepEqual(out.output, { kind: 'text', text: 'Hello from the fake model.' });
  } finally {
    await other.close();
  }
});
