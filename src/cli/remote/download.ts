import fs from 'node:fs';
import path from 'node:path';
import type { Atelier } from '../../../packages/sdk/src/client.js';
import { extensionFor } from './files.js';

/** One output to save: where the server serves it and the name it should get on disk (without extension). */
export interface OutputFile {
  url: string;
  stem: string;
  filename?: string;
}

/**
 * File URLs of the service inside a workflow run's outputs (`{ nodeId: { handle: value } }`), named
 * node-handle[-n]. Matched by path, not origin: behind a proxy PUBLIC_URL may differ from ATELIER_URL.
 */
export function fileUrlsIn(outputs: unknown): OutputFile[] {
  const found: OutputFile[] = [];
  const visit = (v: unknown, stem: string) => {
    if (typeof v === 'string') {
      if (isFileUrl(v)) found.push({ url: v, stem });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, v.length > 1 ? `${stem}-${i + 1}` : stem));
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const key = k.replace(/^out:/, '');
        visit(item, stem ? `${stem}-${key}` : key);
      }
    }
  };
  visit(outputs, '');
  return found;
}

function isFileUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.pathname.startsWith('/v1/files/');
  } catch {
    return false;
  }
}

/** A name safe on every file system: no directories, no control characters, no leading dots. */
export function safeName(name: string): string {
  const base = path.basename(name).replace(/[^\w.\- ]+/g, '_').replace(/^\.+/, '').trim();
  return base.slice(0, 120) || 'output';
}

/** Picks `name`, or `name-2`, `name-3` … when a file of that name is already in the folder. */
function freePath(dir: string, stem: string, ext: string): string {
  for (let n = 1; ; n++) {
    const p = path.join(dir, `${stem}${n === 1 ? '' : `-${n}`}${ext}`);
    if (!fs.existsSync(p)) return p;
  }
}

/** Downloads each output into `dir` (created when missing) and returns the paths written. */
export async function saveOutputs(client: Atelier, files: OutputFile[], dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const f of files) {
    const { bytes, contentType } = await client.files.download(f.url);
    const named = f.filename ? safeName(f.filename) : undefined;
    const ext = named && path.extname(named) ? path.extname(named) : extensionFor(contentType);
    const stem = named ? named.slice(0, named.length - path.extname(named).length) || 'output' : safeName(f.stem);
    const target = freePath(dir, stem, ext);
    fs.writeFileSync(target, bytes, { flag: 'wx' });
    written.push(target);
  }
  return written;
}

/** Saves a text result next to the files (models whose output is text rather than a file). */
export function saveText(dir: string, stem: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const target = freePath(dir, safeName(stem), '.txt');
  fs.writeFileSync(target, text, { flag: 'wx' });
  return target;
}
