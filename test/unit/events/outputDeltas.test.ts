import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Db } from '../../../src/db/pool.js';
import { Notifier } from '../../../src/db/notifier.js';
import { deltaPayloads, listenForDeltas, MAX_NOTIFY_BYTES, OutputDeltas, parseDeltaPayload } from '../../../src/events/outputDeltas.js';
import type { OutputDeltaEvent } from '../../../src/contract/webhooks.js';
import { freshDatabase } from '../../helpers/db.js';
import { until } from '../../helpers/poll.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('delta payloads (NOTIFY refuses 8000 bytes and more)', () => {
  test('a long delta is cut into payloads under the limit, in index order, never inside a character', () => {
    // Multi-byte characters, a surrogate pair and characters JSON escapes make bytes and characters differ.
    const text = 'ab"\\\n\u0001é🎨'.repeat(3000);
    const payloads = deltaPayloads('run_x', 'node1', 5, text, 7);
    assert.ok(payloads.length > 1);
    const events = payloads.map((p) => {
      assert.ok(Buffer.byteLength(p) <= MAX_NOTIFY_BYTES, `payload of ${Buffer.byteLength(p)} bytes`);
      return parseDeltaPayload(p, 'run_x')!;
    });
    assert.deepEqual(events.map((e) => e.index), events.map((_, i) => 5 + i));
    for (const e of events) {
      assert.equal(e.type, 'run.output.delta');
      assert.equal(e.nodeId, 'node1');
      assert.equal(e.tokens, 7);
      assert.doesNotMatch(e.delta, LONE_SURROGATE);
    }
    assert.equal(events.map((e) => e.delta).join(''), text);
  });

  test('a listener reads only its own run\'s payloads (a run id that is a prefix of another\'s included)', () => {
    const [p] = deltaPayloads('run_ab', undefined, 0, 'hi');
    assert.equal(parseDeltaPayload(p!, 'run_a'), undefined);
    assert.deepEqual(parseDeltaPayload(p!, 'run_ab'), { type: 'run.output.delta', runId: 'run_ab', index: 0, delta: 'hi', tokens: 0 });
    assert.equal(parseDeltaPayload('run_ab\n{not json', 'run_ab'), undefined);
  });
});

describe('OutputDeltas over PostgreSQL notifications', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let notifier: Notifier;
  before(async () => {
    database = await freshDatabase();
    db = new Db(database.url, { max: 2 });
    notifier = new Notifier(database.url);
    await notifier.start();
  });
  after(async () => {
    await notifier?.stop();
    await db?.pool.end();
    await database?.drop();
  });

  test('many small deltas go out as few notifications (never one per token), in order, the first at once; flush sends the rest', async () => {
    const got: OutputDeltaEvent[] = [];
    const off = await listenForDeltas(notifier, 'run_one', (d) => got.push(d));
    const other: OutputDeltaEvent[] = [];
    const offOther = await listenForDeltas(notifier, 'run_other', (d) => other.push(d));
    try {
      const sink = new OutputDeltas(db, 'run_one', undefined, { intervalMs: 10_000, maxTokens: 50 });
      sink.push('first');
      // The first delta is not held for the interval: it arrives while the interval is far from over.
      await until('the first delta', () => got.length === 1, 30_000);
      const tokens = Array.from({ length: 400 }, (_, i) => ` t${i}`);
      for (const t of tokens) sink.push(t);
      sink.push('x'.repeat(20_000)); // one delta too big for one notification
      await sink.flush();
      await until('every delta', () => got.map((d) => d.delta).join('') === `first${tokens.join('')}${'x'.repeat(20_000)}`, 30_000,
        () => `got ${got.length} deltas, ${got.map((d) => d.delta).join('').length} characters`);
      assert.ok(got.length < 20, `${got.length} notifications for 402 deltas`);
      assert.deepEqual(got.map((d) => d.index), got.map((_, i) => i));
      assert.equal(got[0]!.tokens, 1);
      assert.equal(got.at(-1)!.tokens, 402, 'tokens counts the engine\'s chunks so far');
      assert.deepEqual(other, []);
    } finally {
      off();
      offOther();
    }
  });
});
