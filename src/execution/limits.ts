import type { EngineOutputs, OutputValue } from '../engines/types.js';

/**
 * Bytes an output takes once stored: UTF-8 text, file bytes, JSON text. Pure but for `fileSize`, which
 * sizes a file output whose bytes stay in a file (`path`, streamed to the store, never read into memory).
 */
export function outputBytes(outputs: EngineOutputs, fileSize?: (path: string) => number): number {
  let total = 0;
  const one = (v: OutputValue): number => {
    switch (v.kind) {
      case 'file': return v.path !== undefined && fileSize ? fileSize(v.path) : v.data.byteLength;
      case 'text': return Buffer.byteLength(v.text);
      case 'number':
      case 'boolean': return 8;
      case 'json': return Buffer.byteLength(JSON.stringify(v.value) ?? '');
    }
  };
  for (const value of Object.values(outputs)) {
    for (const v of Array.isArray(value) ? value : [value]) total += one(v);
  }
  return total;
}
