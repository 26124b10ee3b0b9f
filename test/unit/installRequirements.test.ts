import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// A fresh clone installs and runs without warnings from the project's own configuration (issue 16, item 11).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

test('npm reads no unknown setting from the project .npmrc', () => {
  const r = spawnSync('npm', ['config', 'get', 'fund'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Unknown project config/);
  // The onnxruntime-node CUDA download is skipped by allowScripts (its install script does not run at all).
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.allowScripts['onnxruntime-node'], false);
});

test('every installed package accepts the oldest Node the project claims, and the README says the same', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const floor = semver.minVersion(pkg.engines.node)!.version;
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
    .filter(([name, p]) => name !== '' && p.engines?.node && !semver.satisfies(floor, p.engines.node))
    .map(([name, p]) => `${name} wants node ${p.engines!.node}`);
  assert.deepEqual(refusing, [], `Node ${floor} (engines ${pkg.engines.node}) is refused by`);
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const claim = /Node (\d+(?:\.\d+)*) or newer/.exec(readme);
  assert.ok(claim, 'the README states a Node version');
  assert.equal(semver.minVersion(claim[1]!)!.version, floor);
});
