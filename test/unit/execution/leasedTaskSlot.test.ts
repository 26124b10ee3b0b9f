import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { LeasedTaskRunner, type LeasedTask } from '../../../src/execution/leasedTask.js';
import { runInSlot } from '../../../src/execution/remoteLane.js';

function task(over: Partial<LeasedTask>): LeasedTask {
  return {
    key: `t${Math.random()}`, logContext: {}, scratchName: `slot-${process.pid}-${Math.random().toString(36).slice(2)}`,
    timeoutAt: Date.now() + 60_000, cancelAfter: null, timeoutMessage: 'timed out',
    heartbeat: async () => true,
    execute: async () => ({ text: { kind: 'text', value: 'ok' } }) as never,
    settleSuccess: async () => true,
    settleFailure: async () => true,
    handBack: async () => {},
    ...over,
  };
}

const runner = new LeasedTaskRunner(pino({ level: 'silent' }), { leaseSeconds: 30, tmpRoot: path.join(os.tmpdir(), 'atelier-slot-test') });

for (const outcome of ['success', 'failure'] as const) {
  test(`a task's consumer slot goes back when its engine ends, before its settle (${outcome})`, async () => {
    let settleStarted!: () => void;
    const started = new Promise<void>((r) => (settleStarted = r));
    let finishSettle!: () => void;
    const settleDone = new Promise<void>((r) => (finishSettle = r));
    const settle = async () => {
      settleStarted();
      await settleDone; // a settle waiting on the database
      return true;
    };
    const order: string[] = [];
    const { done, released } = runInSlot(() => runner.run(task({
      execute: outcome === 'success' ? async () => ({}) : async () => { throw new Error('engine said no'); },
      settleSuccess: settle,
      settleFailure: settle,
    })).then(() => void order.push('settled')));
    void released.then(() => order.push('released'));
    await started;
    await new Promise((r) => setImmediate(r)); // let the release's callbacks run
    finishSettle();
    await done;
    await released;
    assert.deepEqual(order, ['released', 'settled']);
  });
}
