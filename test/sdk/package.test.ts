import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ROOT } from '../../scripts/openapiGenerate.js';

/**
 * @atelier/sdk as a user gets it: `npm pack` (which builds dist/), the tarball installed into a fresh
 * project with no registry (the package has no dependencies), a strict TypeScript file compiled against
 * its published types, and run against a live server.
 */
const exec = promisify(execFile);
const SDK = path.join(ROOT, 'packages/sdk');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-sdk-pack-'));
let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string) => exec('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, maxBuffer: 16 << 20, env: { ...process.env, npm_config_update_notifier: 'false' } });

const APP = `import { Atelier, AtelierError, verifyWebhook, type NodeRun, type ModelEntry } from '@atelier/sdk';

const client = new Atelier({ apiKey: process.env.ATELIER_API_KEY ?? '', baseUrl: process.env.ATELIER_URL ?? '' });
const models: ModelEntry[] = await client.models.list();
const balance = await client.credits.balance();
const handle = await client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: {} });
const run: NodeRun = await handle.wait({ timeoutMs: 60_000 });
const file = run.files[0];
const bytes = file ? (await client.files.download(file.url)).bytes.length : 0;
let code = '';
try {
  await client.nodeRuns.get('run_missing');
} catch (err) {
  if (err instanceof AtelierError) code = err.code;
}
console.log(JSON.stringify({ models: models.length, balance: balance.availableBalance, status: run.status, charged: run.creditUsed, bytes, code, verify: typeof verifyWebhook }));
`;

test('npm pack → install the tarball offline into a fresh project → compile strict TypeScript → run against a live server', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(SDK, 'package.json'), 'utf8'));
  assert.equal(manifest.name, '@atelier/sdk');
  assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
  assert.equal(manifest.exports['.'].types, './dist/index.d.ts');

  const packed = JSON.parse((await npm(['pack', '--json', '--pack-destination', tmp], SDK)).stdout.replace(/^[^[]*/, ''))[0];
  const files: string[] = packed.files.map((f: { path: string }) => f.path);
  for (const f of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']) assert.ok(files.includes(f), `${f} is in the tarball`);
  assert.ok(!files.some((f) => f.startsWith('src/')), 'sources stay out of the tarball');

  const project = path.join(tmp, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  await npm(['install', '--offline', path.join(tmp, packed.filename)], project);
  assert.ok(fs.existsSync(path.join(project, 'node_modules/@atelier/sdk/dist/index.js')));

  fs.writeFileSync(path.join(project, 'app.ts'), APP);
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, outDir: 'out',
      // Node's own types (the SDK uses node:crypto) from the repository, as a user's project has @types/node.
      typeRoots: [path.join(ROOT, 'node_modules/@types')], types: ['node'],
    },
    files: ['app.ts'],
  }));
  const tsc = await exec(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project]).catch((e) => e);
  assert.equal(`${tsc.stdout}${tsc.stderr}`.trim(), '', 'the consumer compiles under --strict against the published types');

  const { key } = await srv.user();
  const { stdout } = await exec(process.execPath, [path.join(project, 'out/app.js')], { cwd: project, env: { ...process.env, ATELIER_API_KEY: key, ATELIER_URL: srv.url } });
  const out = JSON.parse(stdout);
  assert.ok(out.models > 10);
  assert.equal(out.status, 'COMPLETED');
  assert.ok(out.charged > 0 && out.bytes > 100);
  assert.equal(out.code, 'NOT_FOUND');
  assert.equal(out.verify, 'function');
});
