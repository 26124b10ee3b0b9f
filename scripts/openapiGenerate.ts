/**
 * The checked-in artifacts derived from the served OpenAPI document:
 *   docs/openapi.json                        the document, as a default local server serves it;
 *   packages/sdk/src/generated/openapi.ts    the SDK's types, generated from it by openapi-typescript.
 * test/api/openapiTools.test.ts checks both match what a fresh server serves (regenerating changes nothing);
 * `npm run openapi:generate` writes them again after a route or schema change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DOC_PATH = path.join(ROOT, 'docs/openapi.json');
export const SDK_TYPES_PATH = path.join(ROOT, 'packages/sdk/src/generated/openapi.ts');

/** The served document with the server entry of a default local install (the served one says PUBLIC_URL or its own origin). */
export function documentSnapshot(served: Record<string, unknown>): string {
  const doc = {
    ...served,
    servers: [
      { url: 'http://127.0.0.1:8080', description: 'A default local server (the served document names PUBLIC_URL, or the origin it was fetched from)' },
      { url: 'http://127.0.0.1:8080/api', description: 'The same server under /api, as the hosted service is addressed: every path answers in both forms' },
    ],
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** TypeScript types of every path, operation and schema of the document. */
export async function sdkTypes(snapshot: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(snapshot), { exportType: false, alphabetize: false });
  return `// Generated from docs/openapi.json by scripts/openapiGenerate.ts (openapi-typescript). Do not edit:\n// run \`npm run openapi:generate\`.\n\n${astToString(ast)}`;
}

/** Writes both files; returns which changed. */
export async function writeArtifacts(served: Record<string, unknown>): Promise<string[]> {
  const snapshot = documentSnapshot(served);
  const changed: string[] = [];
  for (const [file, text] of [[DOC_PATH, snapshot], [SDK_TYPES_PATH, await sdkTypes(snapshot)]] as const) {
    const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (before !== text) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      changed.push(path.relative(ROOT, file));
    }
  }
  return changed;
}
