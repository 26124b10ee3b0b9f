import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Db } from '../../src/db/pool.js';
import { Notifier } from '../../src/db/notifier.js';
import { JobQueue, RUN_QUEUE } from '../../src/queue/queue.js';
import { freshDatabase } from '../helpers/db.js';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let notifier: Notifier;
let queue: JobQueue;

before(async () => {
  database = await freshDatabase();
  db = new Db(database.url, { max: 2 });
  notifier = new Notifier(database.url);
  await notifier.start();
  // A polling interval far longer than the test may take: only the loop's own re-asking can drain a backlog.
  queue = new JobQueue(database.url, notifier, { supervise: false, pollingIntervalSeconds: 600 });
  await queue.start();
});

after(async () => {
  await queue.stop();
  await notifier.stop();
  await db.close();
  await database.drop();
});

test('a worker loop that finished a job takes the next queued one without waiting for its polling interval', async () => {
  // Jobs sent without the wake-up NOTIFY, as a backlog left by a crashed process would be.
  for (let i = 0; i < 5; i++) await queue.boss.send(RUN_QUEUE, { runId: `run_${i}`, kind: 'node' });
  const seen: string[] = [];
  let allSeen: () => void = () => {};
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  await queue.work(1, async (job) => {
    seen.push(job.runId);
    if (seen.length === 5) allSeen();
  });
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
  assert.notEqual(await Promise.race([done, timeout]), 'timeout', `only ${seen.length} of 5 jobs ran`);
  assert.deepEqual([...seen].sort(), ['run_0', 'run_1', 'run_2', 'run_3', 'run_4']);
});
