import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The operator's ceiling on a key's run priority (issue 29): `atelier keys set-priority`.
let srv: TestServer;
let env: Record<string, string>;
before(async () => {
  srv = await startTestServer();
  env = { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir };
});
after(async () => {
  await srv.close();
});

test('atelier keys set-priority raises what a key may ask for; bad values exit non-zero with a reason', async () => {
  const u = await srv.user();
  const create = (priority: number) => srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body: { subModelId: 'sfxr-jump', input: {}, priority } });
  assert.equal((await create(2)).status, 403);
  const r = await runCli(['keys', 'set-priority', '--email', u.email, '--label', 'test', '--max-priority', '2', '--json'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).maxPriority, 2);
  assert.equal((await create(2)).status, 202);
  const above = await create(3);
  assert.equal(above.status, 403);
  assert.equal(above.body.code, 'PRIORITY_NOT_ALLOWED');
  assert.equal(above.body.maxPriority, 2);
  for (const [args, reason] of [
    [['--max-priority', '11'], /max-priority must be an integer from 0 to 10/],
    [['--max-priority=-1'], /max-priority must be an integer from 0 to 10/],
    [[], /--max-priority N \(0 to 10\) is required/],
  ] as const) {
    const bad = await runCli(['keys', 'set-priority', '--email', u.email, '--label', 'test', ...args], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr.trim(), reason);
  }
  const none = await runCli(['keys', 'set-priority', '--email', u.email, '--label', 'nope', '--max-priority', '1'], env);
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, /no active key labelled nope/);
});
