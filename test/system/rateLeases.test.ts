import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/server.js';
import { twoApis, type RoleProcess } from '../helpers/processes.js';
import { until } from '../helpers/poll.js';

// Issue 17 item 2: busy keys are admitted from short per-process leases of quota (keys/quotaLease.ts).
// Process A is this test process's server (its counter's figures can be read); process B is a separate
// `atelier serve --role api` on the same database.
let a: TestServer;
let b: RoleProcess;
let apis: Awaited<ReturnType<typeof twoApis>> | undefined;

before(async () => {
  apis = await twoApis();
  ({ a, b } = apis);
});

after(async () => {
  await apis?.close();
});

const get = (base: string, key: string) =>
  fetch(`${base}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
    await r.arrayBuffer();
    return { status: r.status, remaining: Number(r.headers.get('x-ratelimit-remaining')) };
  });

/** `total` requests, `parallel` at a time, alternating between the two processes. */
async function burst(key: string, total: number, parallel: number) {
  const answers: Array<{ status: number; remaining: number }> = [];
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < total) {
      const i = next++;
      answers.push(await get(i % 2 === 0 ? a.url : b.url!, key));
    }
  }));
  return answers;
}

const windowCounts = async (email: string) => (await a.services.db.query(
  `SELECT w.minute_count, w.day_count FROM key_windows w JOIN api_keys k ON k.id = w.key_id JOIN users u ON u.id = k.user_id WHERE u.email = $1`, [email])).rows[0];

test('a busy key spread over two API processes is admitted exactly its limit, leases and all', async () => {
  // The day window is the tight one (no minute boundary can split the burst); 640 a day allows leases of 20.
  const u = await a.user({ perMinute: 10_000, perDay: 640 });
  const leasedBefore = a.services.keys.counter.stats.leased;
  const answers = await burst(u.key, 1_000, 40);
  const admitted = answers.filter((r) => r.status === 200);
  assert.equal(admitted.length, 640, `statuses: ${JSON.stringify(answers.map((r) => r.status))}`);
  assert.equal(answers.filter((r) => r.status === 429).length, 360);
  assert.ok(a.services.keys.counter.stats.leased > leasedBefore, 'some requests were admitted from a lease');
  for (const r of admitted) assert.ok(r.remaining >= 0 && r.remaining < 640, `remaining ${r.remaining}`);
  assert.equal((await windowCounts(u.email)).day_count, 640);
});

test('leased units a process did not use go back to the shared windows', async () => {
  const u = await a.user({ perMinute: 10_000, perDay: 100_000 });
  // Only process A: a burst big enough for it to take a lease, then silence.
  const leasedBefore = a.services.keys.counter.stats.leased;
  const answers = await Promise.all(Array.from({ length: 300 }, () => get(a.url, u.key)));
  const admitted = answers.filter((r) => r.status === 200).length;
  assert.equal(admitted, 300);
  assert.ok(a.services.keys.counter.stats.leased > leasedBefore, 'some requests were admitted from a lease');
  await until('the unused leased units to be given back', async () => {
    const w = await windowCounts(u.email);
    return w.day_count === admitted;
  }, 30_000);
});
