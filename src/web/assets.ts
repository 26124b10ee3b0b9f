import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The web app's static files: our own CSS and scripts from src/web/public, and the graph library's
 * browser bundle straight from node_modules, so `npm ci && npm start` serves everything with no build
 * step and nothing comes from a CDN. A fixed list, read once: no path from a request ever reaches the
 * file system.
 */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/assets/app.css': { file: path.join(here, 'public/app.css'), type: 'text/css; charset=utf-8' },
  '/assets/app.js': { file: path.join(here, 'public/app.js'), type: 'text/javascript; charset=utf-8' },
  '/assets/graph.js': { file: path.join(here, 'public/graph.js'), type: 'text/javascript; charset=utf-8' },
  '/assets/vendor/cytoscape.min.js': { file: require.resolve('cytoscape/dist/cytoscape.min.js'), type: 'text/javascript; charset=utf-8' },
};

/**
 * The workflow editor's bundle (src/web/editor built by Vite into dist/editor; see scripts/build-editor.mjs).
 * Built on install; built here at start when missing or older than its sources. A failed build leaves the
 * rest of the app serving and the editor page saying it is unavailable.
 */
async function editorAssets(log: FastifyInstance['log']): Promise<Record<string, { file: string; type: string }>> {
  try {
    // From the compiled tree (build/src/web/, scripts/build.mjs) the project's scripts/ is one level further up.
    const script = new URL(`${import.meta.url.endsWith('.js') ? '../' : ''}../../scripts/build-editor.mjs`, import.meta.url).href;
    const { ensureEditorBuilt, EDITOR_OUT } = (await import(script)) as typeof import('../../scripts/build-editor.mjs');
    await ensureEditorBuilt({ quiet: true });
    return {
      '/assets/editor/editor.js': { file: path.join(EDITOR_OUT, 'editor.js'), type: 'text/javascript; charset=utf-8' },
      '/assets/editor/editor.css': { file: path.join(EDITOR_OUT, 'editor.css'), type: 'text/css; charset=utf-8' },
    };
  } catch (err) {
    log.warn({ err }, 'the workflow editor could not be built; /workflows/*/edit will not work');
    return {};
  }
}

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  for (const [url, asset] of Object.entries({ ...ASSETS, ...(await editorAssets(app.log)) })) {
    const body = fs.readFileSync(asset.file);
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    app.get(url, { config: { web: 'public' } }, async (req, reply) => {
      // Revalidated on every load (cheap with the ETag), so a new release is picked up at once.
      reply.header('Cache-Control', 'no-cache').header('ETag', etag).type(asset.type);
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    });
  }
}
