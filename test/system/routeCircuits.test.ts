import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Db } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { RouteCircuits } from '../../src/catalog/routeCircuits.js';
import { freshDatabase } from '../helpers/db.js';
import { until } from '../helpers/poll.js';

/**
 * Per-route circuits (catalog/routeCircuits.ts) as two workers see them: two connection pools on one
 * database. Failures counted by one open the circuit for the other; once its open time lapses (one second,
 * the least setting) exactly one of many concurrent callers gets the probe; the probe's success closes it.
 */
let database: { url: string; drop: () => Promise<void> };
let a: Db;
let b: Db;

before(async () => {
  database = await freshDatabase();
  a = new Db(database.url);
  b = new Db(database.url);
  await migrate(a);
});
after(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

it('a route circuit opens after the threshold for every worker, lets one probe through when it lapses, and closes on its success', async () => {
  const settings = { threshold: 2, openSeconds: 1, maxOpenSeconds: 1 };
  const one = new RouteCircuits(a, settings);
  const two = new RouteCircuits(b, settings);
  const key = 'flux-2-pro/fal';

  assert.deepEqual(await two.gate(key), { state: 'closed', failures: 0 });
  assert.equal(await one.failed(key), null, 'below the threshold it stays closed');
  assert.deepEqual(await two.gate(key), { state: 'closed', failures: 1 });
  const openUntil = await one.failed(key);
  assert.ok(openUntil instanceof Date);
  const seen = await two.gate(key);
  assert.equal(seen.state, 'open', 'the other worker sees it open');

  // Half-open: the first gate after the open time lapses takes the one probe; everyone else still sees it open.
  await until('the circuit to lapse', async () => (await one.gate(key)).state !== 'open', 30_000).catch(() => {});
  // The poll above may itself have taken the probe; in that case wait for the probe's own hold to lapse.
  await until('a probe to be free', async () => {
    const rows = (await a.query(`SELECT open_until <= now() AS lapsed FROM route_circuits WHERE route = $1`, [key])).rows;
    return rows[0]?.lapsed === true;
  }, 30_000);
  const gates = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? one : two).gate(key)));
  const probes = gates.filter((g) => g.state === 'probe');
  assert.equal(probes.length, 1, JSON.stringify(gates));
  assert.equal(gates.filter((g) => g.state === 'open').length, 5);

  await one.served(key, probes[0]!);
  assert.deepEqual(await two.gate(key), { state: 'closed', failures: 0 });
});
