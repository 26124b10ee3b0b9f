import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createFalEngine, type FalSettings } from '../../../../src/engines/remote/fal.js';
import { EngineError, type FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startFalFake, type FalFake } from '../../../helpers/providers/fal.js';

/** The fal adapter against its fake, for the provider findings of issue 28. */
const KEY = 'fal-key-id:fal-key-secret-unit-01';
let fake: FalFake;
before(async () => {
  fake = await startFalFake(KEY);
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 200, requestTimeoutMs: 5000 };
const settings = (o: Partial<FalSettings> = {}): FalSettings => ({
  apiKey: KEY, queueUrl: `${fake.url}/queue`, baseUrl: `${fake.url}/run`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o,
});
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<FalSettings> = {}) {
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 50e6, timeoutMs: 30_000 });
  return createFalEngine(settings(o)).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
}

test('finding 4: a file that is not the image the binding outputs fails the run (checked by its bytes, not its claimed type)', async () => {
  await assert.rejects(run({ prompt: 'a fox' }, { model: 'fal-ai/not-an-image', expect: 'image' }), (err: Error) => {
    assert.ok(err instanceof EngineError, String(err));
    assert.match(err.message, /not image/);
    return true;
  });
  const ok = await run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1', expect: 'image' });
  assert.equal((ok.result as FileOutput[])[0]!.contentType, 'image/png');
});
