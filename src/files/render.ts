import type { Queryable } from '../db/pool.js';
import type { FileService, FileView } from './service.js';

/**
 * Stored outputs keep files as `{ file: id }` references; reading a run turns them into signed URLs
 * (which expire, so they are never stored) and lists each file's details under `files`.
 */
export type StoredOutput = Record<string, unknown>;

function isFileRef(v: unknown): v is { file: string } {
  return typeof v === 'object' && v !== null && typeof (v as { file?: unknown }).file === 'string' && Object.keys(v).length === 1;
}

export async function renderOutput(files: FileService, stored: StoredOutput | null, tx?: Queryable): Promise<{ output: Record<string, unknown> | null; files: FileView[] }> {
  if (!stored) return { output: null, files: [] };
  const views: FileView[] = [];
  const render = async (v: unknown): Promise<unknown> => {
    if (isFileRef(v)) {
      const rec = await files.get(v.file, tx);
      if (!rec) return null; // expired by retention
      const view = await files.view(rec);
      views.push(view);
      return view.url;
    }
    if (Array.isArray(v)) return Promise.all(v.map(render));
    // A workflow run's outputs nest one level deeper ({ nodeId: { handle: [refs] } }): objects are walked too,
    // so its run.completed event and SSE message carry the same signed URLs as GET /v1/runs/{id}.
    if (typeof v === 'object' && v !== null) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = await render(x);
      return o;
    }
    return v;
  };
  const output: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) output[k] = await render(v);
  return { output, files: views };
}

