import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ESpeakNg from 'espeak-ng';

/**
 * Runs in a worker thread (threads.ts). The package is the espeak-ng command line compiled to WASM:
 * each call instantiates it, runs main() with arguments, and reads the WAV it wrote to its in-memory
 * file system. Compiling the 18 MB module is the slow part, so it happens once per thread.
 */
let compiled: Promise<WebAssembly.Module> | undefined;

function wasmModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    const entry = createRequire(import.meta.url).resolve('espeak-ng');
    compiled = WebAssembly.compile(fs.readFileSync(path.join(path.dirname(entry), 'espeak-ng.wasm')));
  }
  return compiled;
}

export interface EspeakJob {
  text: string;
  /** `en-us`, or `en-us+f3` with a variant. */
  voice: string;
  wordsPerMinute: number;
  pitch: number;
}

export type EspeakResult = { wav: Uint8Array } | { error: string };

export async function synthesize(job: EspeakJob): Promise<EspeakResult> {
  const mod = await wasmModule();
  const errors: string[] = [];
  // The text goes in a file rather than argv so text starting with "-" is never read as an option.
  const es = await ESpeakNg({
    arguments: ['-v', job.voice, '-s', String(job.wordsPerMinute), '-p', String(job.pitch), '-f', '/input.txt', '-w', '/speech.wav'],
    preRun: [(m) => m.FS.writeFile('/input.txt', job.text)],
    instantiateWasm: (imports, done) => {
      void WebAssembly.instantiate(mod, imports).then((instance) => done(instance, mod));
      return {};
    },
    print: () => {},
    printErr: (line) => {
      if (!line.includes('keepRuntimeAlive')) errors.push(line);
    },
  });
  try {
    return { wav: es.FS.readFile('/speech.wav') };
  } catch {
    return { error: errors.join(' ').trim() || 'espeak-ng wrote no audio' };
  }
}
