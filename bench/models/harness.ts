import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Catalog } from '../../src/catalog/catalog.js';
import type { EngineRegistry } from '../../src/engines/registry.js';
import type { EngineContext, EngineOutputs, FileOutput, Media, OutputValue } from '../../src/engines/types.js';

/**
 * Runs one model on one input the way a run does (input validated against the mode's schema, defaults
 * filled, the catalog binding's options passed), through the engine's own execute(), offline.
 */
export class ModelRunner {
  constructor(private readonly catalog: Catalog, private readonly engines: EngineRegistry) {}

  available(nodeType: string, subModelId?: string): boolean {
    const r = this.catalog.resolveNode(nodeType, subModelId, { requireSubModel: false });
    return this.catalog.availability(r.model, r.mode).available;
  }

  async run(nodeType: string, subModelId: string | undefined, input: Record<string, unknown>): Promise<{ out: EngineOutputs; ms: number }> {
    const r = this.catalog.resolveNode(nodeType, subModelId, { requireSubModel: false });
    const a = this.catalog.availability(r.model, r.mode);
    if (!a.available) throw new Error(`${nodeType} is unavailable: ${a.reason}`);
    const engine = this.engines.get(r.mode.engine.engine)!;
    const valid = this.catalog.validateInput(r.mode, input, { path: 'input' });
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-model-'));
    const ctx: EngineContext = {
      signal: new AbortController().signal,
      deadline: Date.now() + 600_000,
      progress: () => {},
      log: { debug: () => {}, info: () => {}, warn: () => {} },
      tmpDir,
      async fetchMedia(url: string): Promise<Media> {
        const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
        if (!m) throw new Error('bench inputs are data: URLs');
        return { bytes: m[2] ? Buffer.from(m[3]!, 'base64') : Buffer.from(decodeURIComponent(m[3]!)), contentType: m[1] || 'application/octet-stream' };
      },
    };
    const t0 = performance.now();
    try {
      const out = await engine.execute({ nodeType, subModelId: r.mode.subModelId, input: valid, options: r.mode.engine.options ?? {} }, ctx);
      return { out, ms: performance.now() - t0 };
    } finally {
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  }
}

export const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

export function textOf(out: EngineOutputs, name = 'output'): string {
  const v = out[name] as OutputValue | OutputValue[] | undefined;
  const one = Array.isArray(v) ? v[0] : v;
  if (!one) return '';
  if (one.kind === 'text') return one.text;
  if (one.kind === 'json') return JSON.stringify(one.value);
  return '';
}

export function fileOf(out: EngineOutputs, name = 'result'): FileOutput {
  const v = out[name];
  const one = Array.isArray(v) ? v[0] : v;
  if (!one || one.kind !== 'file') throw new Error(`no file output ${name}`);
  return one;
}

/** Debian sample pictures used as held-out inputs (none of these models was tuned on them here). */
export const SKIMAGE = '/usr/lib/python3/dist-packages/skimage/data';
export const MATPLOTLIB = ['/usr/share/matplotlib/mpl-data/sample_data', '/usr/share/matplotlib/sample_data'].find((p) => fs.existsSync(p));

export function samplePath(name: string): string | undefined {
  const candidates = name === 'grace_hopper.jpg' ? (MATPLOTLIB ? [path.join(MATPLOTLIB, name)] : []) : [path.join(SKIMAGE, name)];
  return candidates.find((p) => fs.existsSync(p));
}
