import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blobStoreEnvForTests } from './s3.js';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/atelier.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `atelier` command in a child process. */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  // ATELIER_BLOB_STORE=s3 runs of the suite: the command sees the bucket its DATA_DIR's servers use.
  const blobEnv = env.DATA_DIR ? await blobStoreEnvForTests(env.DATA_DIR, env) : {};
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...blobEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
