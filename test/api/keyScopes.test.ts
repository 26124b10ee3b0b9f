import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { WebClient } from '../web/webClient.js';
import { setMaxPriority } from '../../src/keys/priority.js';

// Issue 29 item 2: scoped keys. A role (full, run-only, read-only) and an allow-list of models; a refused
// call answers 403 with a code naming the scope; listings (API, CLI, web page) show the scopes.
let srv: TestServer;
let full: { email: string; key: string; accountId: string };

before(async () => {
  srv = await startTestServer();
  full = await srv.user();
});
after(async () => srv?.close());

async function scopedKey(label: string, scope: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const user = await srv.services.accounts.requireByEmail(full.email);
  const k = await srv.services.keys.create(user, { label, perMinute: 1000, perDay: 10_000, ...scope });
  return { id: k.id, key: k.key };
}

test('a run-only key cannot create or edit a workflow, nor manage keys, but can run models and read', async () => {
  const k = await scopedKey('runner', { role: 'run-only' });
  const created = await srv.request('POST', '/v1/workflows', { key: k.key, body: { name: 'x', graph: { nodes: [], edges: [] } } });
  const body = expectErrorBody(created, 403, 'KEY_ROLE');
  assert.match(body.message, /run-only/);
  expectErrorBody(await srv.request('PATCH', `/v1/keys/${k.id}`, { key: k.key, body: { role: 'full' } }), 403, 'KEY_ROLE');
  expectErrorBody(await srv.request('GET', '/v1/webhooks/secret', { key: k.key }), 403, 'KEY_ROLE');
  assert.equal((await srv.request('GET', '/v1/workflows', { key: k.key })).status, 200);
  assert.equal((await srv.request('GET', '/v1/credits/balance', { key: k.key })).status, 200);
  // Its runs are not refused by the role (the model may be unavailable here: anything but a 403).
  const run = await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: k.key, body: { input: { text: 'hello' } } });
  assert.notEqual(run.status, 403, run.text);
});

test('a read-only key reads and estimates but cannot run', async () => {
  const k = await scopedKey('reader', { role: 'read-only' });
  expectErrorBody(await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: k.key, body: { input: { text: 'hello' } } }), 403, 'KEY_ROLE');
  assert.equal((await srv.request('GET', '/v1/models', { key: k.key })).status, 200);
  const est = await srv.request('POST', '/v1/nodes/estimate-credits', { key: k.key, body: { nodes: [{ type: 'espeak_tts', data: { text: 'hi' } }] } });
  assert.notEqual(est.status, 403, est.text);
});

test('a key limited to espeak_tts gets 403 KEY_SCOPE_MODEL on poster_render; category and provider lists refuse likewise', async () => {
  const k = await scopedKey('tts only', { nodeTypes: ['espeak_tts'] });
  const refused = expectErrorBody(await srv.request('POST', '/v1/nodes/poster_render/run', { key: k.key, body: { input: {} } }), 403, 'KEY_SCOPE_MODEL');
  assert.equal(refused.scope, 'nodeTypes');
  assert.deepEqual(refused.allowed, ['espeak_tts']);
  const allowed = await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: k.key, body: { input: { text: 'hello' } } });
  assert.notEqual(allowed.status, 403, allowed.text);
  // Nothing was held for the refused run.
  const b = await srv.request('GET', '/v1/credits/balance', { key: full.key });
  assert.equal(b.status, 200);

  const cat = await scopedKey('audio only', { categories: ['audio'] });
  expectErrorBody(await srv.request('POST', '/v1/nodes/poster_render/run', { key: cat.key, body: { input: {} } }), 403, 'KEY_SCOPE_MODEL');
  const prov = await scopedKey('fal only', { providers: ['fal'] });
  const p = expectErrorBody(await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: prov.key, body: { input: { text: 'x' } } }), 403, 'KEY_SCOPE_MODEL');
  assert.equal(p.scope, 'providers');
});

test('listings show the scopes: GET /v1/keys and the CLI; PATCH changes them at once', async () => {
  const k = await scopedKey('listed', { role: 'run-only', nodeTypes: ['espeak_tts'], budgets: { day: 5000 } });
  const list = await srv.request('GET', '/v1/keys', { key: full.key });
  assert.equal(list.status, 200, list.text);
  const row = list.body.keys.find((x: any) => x.id === k.id);
  assert.equal(row.role, 'run-only');
  assert.deepEqual(row.nodeTypes, ['espeak_tts']);
  assert.equal(row.categories, null);
  assert.equal(row.budgets.length, 1);
  assert.equal(row.budgets[0].period, 'day');
  assert.equal(row.budgets[0].limitMicrocredits, 5000);
  assert.equal(row.budgets[0].spentMicrocredits, 0);

  const patched = await srv.request('PATCH', `/v1/keys/${k.id}`, { key: full.key, body: { role: 'read-only', nodeTypes: null, providers: ['local'], budgets: { day: null, month: 9000 } } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.role, 'read-only');
  assert.equal(patched.body.nodeTypes, null);
  assert.deepEqual(patched.body.providers, ['local']);
  assert.deepEqual(patched.body.budgets.map((b: any) => [b.period, b.limitMicrocredits]), [['month', 9000]]);
  // The change reaches the key at once (the key cache is told).
  expectErrorBody(await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: k.key, body: { input: { text: 'hi' } } }), 403, 'KEY_ROLE');
  expectErrorBody(await srv.request('PATCH', `/v1/keys/${k.id}`, { key: full.key, body: { role: 'owner' } }), 400, 'VALIDATION_ERROR');

  const cli = await runCli(['keys', 'list', '--email', full.email], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /listed.*read-only.*providers local.*month 0\/9000/);
});

test("the web app's key page sets the role, allow-list and spend limits, and the key table shows them", async () => {
  const k = await scopedKey('web scoped', {});
  const web = new WebClient(srv.url);
  assert.equal((await web.signIn(full.email, 'correct horse battery')).status, 303);
  const token = await web.csrf(`/settings/api-keys/${k.id}/edit`);
  const saved = await web.post(`/settings/api-keys/${k.id}`, {
    _csrf: token, label: 'web scoped', perMinute: '1000', perDay: '10000', role: 'run-only', nodeTypes: 'espeak_tts, word_count', categories: '', providers: '',
    dayLimit: '7000', monthLimit: '', totalLimit: '',
  });
  assert.equal(saved.status, 303, saved.text.slice(0, 500));
  const page = (await web.get('/settings/api-keys')).text;
  const row = page.slice(page.indexOf(`data-key-id="${k.id}"`));
  assert.match(row.slice(0, 2000), /Run only[\s\S]*Models: espeak_tts, word_count[\s\S]*Today: 0 of 7,000 µc/);
  expectErrorBody(await srv.request('POST', '/v1/nodes/poster_render/run', { key: k.key, body: { input: {} } }), 403, 'KEY_SCOPE_MODEL');
  // A bad limit is answered on the form, in its words.
  const bad = await web.post(`/settings/api-keys/${k.id}`, { _csrf: token, label: 'web scoped', perMinute: '1000', perDay: '10000', role: 'full', dayLimit: '-5' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Spend limit per UTC day/);
});

test("the key's priority ceiling is shown: GET /v1/keys and /v1/keys/{id}, atelier keys list, and the web app's key table", async () => {
  // A user of its own: the shared one's account is near its ten keys.
  const owner = await srv.user();
  const user = await srv.services.accounts.requireByEmail(owner.email);
  const k = { id: (await srv.services.keys.list(user))[0]!.id, key: owner.key };
  const listed = async () => (await srv.request('GET', '/v1/keys', { key: owner.key })).body.keys.find((x: any) => x.id === k.id);
  assert.equal((await listed()).maxPriority, 0, 'a new key may ask for normal priority only');
  await setMaxPriority(srv.services.db, user.id, 'test', 4);
  assert.equal((await listed()).maxPriority, 4);
  const one = await srv.request('GET', `/v1/keys/${k.id}`, { key: owner.key });
  assert.equal(one.status, 200, one.text);
  assert.equal(one.body.maxPriority, 4);
  // What the key says it may ask for is what a create is held to.
  expectErrorBody(await srv.request('POST', '/v1/nodes/word_count/run', { key: k.key, body: { input: { text: 'a b' }, priority: 5 } }), 403, 'PRIORITY_NOT_ALLOWED');

  const cli = await runCli(['keys', 'list', '--email', owner.email], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /test .*priority up to 4/);
  const json = await runCli(['keys', 'list', '--email', owner.email, '--json'], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
  assert.equal(JSON.parse(json.stdout).find((x: any) => x.id === k.id).maxPriority, 4);

  const web = new WebClient(srv.url);
  assert.equal((await web.signIn(owner.email, 'correct horse battery')).status, 303);
  const page = (await web.get('/settings/api-keys')).text;
  const row = page.slice(page.indexOf(`data-key-id="${k.id}"`));
  assert.match(row.slice(0, 2000), /data-max-priority="4"[^>]*>Priority up to 4</);
  const edit = (await web.get(`/settings/api-keys/${k.id}/edit`)).text;
  assert.match(edit, /Priority up to 4/);
});

test("a workflow run whose model node the key's allow-list excludes is refused before anything is held", async () => {
  const fields = [{ id: 'text', name: 'text', type: 'text' }];
  const wf = await srv.request('POST', '/v1/workflows', {
    key: full.key,
    body: {
      name: 'count words', requestFields: fields,
      nodes: [
        { id: 'req', type: 'request', position: { x: 0, y: 0 }, data: { fields } },
        { id: 'count', type: 'word_count', position: { x: 200, y: 0 }, data: {} },
        { id: 'res', type: 'response', position: { x: 400, y: 0 }, data: {} },
      ],
      edges: [
        { id: 'e1', source: 'req', sourceHandle: 'text', target: 'count', targetHandle: 'in:text' },
        { id: 'e2', source: 'count', sourceHandle: 'out:words', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(wf.status, 201, wf.text);
  const k = await scopedKey('tts for workflows', { role: 'run-only', nodeTypes: ['espeak_tts'] });
  const before = (await srv.request('GET', '/v1/credits/balance', { key: full.key })).body;
  const refused = expectErrorBody(await srv.request('POST', '/v1/runs', { key: k.key, body: { workflowId: wf.body.id, values: { [wf.body.requestNodeId]: { text: 'a b' } } } }), 403, 'KEY_SCOPE_MODEL');
  assert.match(refused.message, /node count: this key may not run word_count/);
  assert.deepEqual((await srv.request('GET', '/v1/credits/balance', { key: full.key })).body, before);
  // The same run with a key allowed word_count is created (a run-only key may run workflows).
  const ok = await scopedKey('counter', { role: 'run-only', nodeTypes: ['word_count'] });
  const run = await srv.request('POST', '/v1/runs', { key: ok.key, body: { workflowId: wf.body.id, values: { [wf.body.requestNodeId]: { text: 'a b' } } } });
  assert.equal(run.status, 202, run.text);
});

test("a run-only key cannot change workflows through MCP's workflow tools either, but may list them", async () => {
  // An account of its own: the suite's account already holds its ten keys.
  const owner = await srv.user();
  const k = await srv.services.keys.create(await srv.services.accounts.requireByEmail(owner.email), { label: 'mcp runner', perMinute: 1000, perDay: 10_000, role: 'run-only' });
  const mcp = (name: string, args: Record<string, unknown>) => srv.request('POST', '/mcp', {
    key: k.key, headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  const before = (await srv.services.db.query(`SELECT count(*)::int AS n FROM workflows WHERE account_id = $1`, [owner.accountId])).rows[0].n;
  const created = await mcp('create_workflow', { name: 'made over MCP' });
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.result.isError, true, created.text);
  assert.match(created.body.result.content[0].text, /KEY_ROLE/);
  assert.equal((await srv.services.db.query(`SELECT count(*)::int AS n FROM workflows WHERE account_id = $1`, [owner.accountId])).rows[0].n, before);
  const listed = await mcp('list_workflows', {});
  assert.equal(listed.body.result.isError ?? false, false, listed.text);
});
