import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runOnRoutes, type RouteReport } from '../../../src/execution/routing.js';
import { ProviderHttpError, ProviderInputError } from '../../../src/engines/remote/http.js';
import type { ModeDef, ModelRoute } from '../../../src/catalog/types.js';

/** The order routes are tried in (execution/routing.ts), with engine calls standing in for the child processes. */
const route = (name: string, microcredits: number): ModelRoute => ({ name, engine: { engine: 'openai', options: { model: name } }, pricing: { kind: 'flat', microcredits } });
const mode = { subModelId: 'm', routes: [route('a', 300), route('b', 200), route('c', 100)] } as unknown as ModeDef;
const ok = { output: { kind: 'text' as const, text: 'hi' } };

describe('runOnRoutes', () => {
  it('skips an unavailable route, moves past a 503, and charges the route that served', async () => {
    const tried: string[] = [];
    let report: RouteReport | undefined;
    const out = await runOnRoutes(mode, {}, {
      signal: new AbortController().signal,
      availability: (r) => (r.name === 'a' ? { available: false, reason: 'set FAL_KEY' } : { available: true }),
      call: async (r) => {
        tried.push(r.name);
        if (r.name === 'b') throw new ProviderHttpError('b failed (HTTP 503)', 503, true);
        return ok;
      },
      onReport: (r) => (report = r),
    });
    assert.deepEqual(out, ok);
    assert.deepEqual(tried, ['b', 'c']);
    assert.equal(report!.served, 'c');
    assert.equal(report!.chargeMicrocredits, 100);
    assert.deepEqual(report!.skipped.map((s) => s.name), ['a', 'b']);
    assert.match(report!.skipped[0]!.reason, /unavailable: set FAL_KEY/);
    assert.match(report!.skipped[1]!.reason, /before the provider took the work: b failed \(HTTP 503\)/);
  });

  it('an input the provider refused ends the run on that route: no other provider is tried', async () => {
    const tried: string[] = [];
    let report: RouteReport | undefined;
    await assert.rejects(runOnRoutes(mode, {}, {
      signal: new AbortController().signal,
      availability: () => ({ available: true }),
      call: async (r) => {
        tried.push(r.name);
        throw new ProviderInputError('rejected the input (HTTP 422)', 422);
      },
      onReport: (r) => (report = r),
    }), /HTTP 422/);
    assert.deepEqual(tried, ['a']);
    assert.equal(report!.served, null);
  });
});
