import fs from 'node:fs';
import path from 'node:path';

/**
 * Where operators drop GGUF models: `MODELS_DIR/llm/` (MODELS_DIR defaults to `<DATA_DIR>/models`, and
 * DATA_DIR to `./data`, as in config.ts). Each `.gguf` file there is one sub-model. Nothing is ever
 * downloaded: no file, no model.
 */
export function llmModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const modelsDir = env.MODELS_DIR || path.join(env.DATA_DIR || './data', 'models');
  return path.resolve(modelsDir, 'llm');
}

export interface GgufFile {
  /** File name inside the llm folder, e.g. "qwen2.5-0.5b-instruct-q4_k_m.gguf". */
  file: string;
  subModelId: string;
  bytes: number;
}

/** kebab-case sub-model id from a file name: `llama-cpp-<name>`, within the catalog's id rules. */
export function subModelIdFor(file: string): string {
  const slug = file
    .replace(/\.gguf$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  return `llama-cpp-${slug || 'model'}`;
}

/** The GGUF files present now, sorted by name; sub-model ids are made unique if two names collide. */
export function listGgufFiles(dir: string = llmModelsDir()): GgufFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /\.gguf$/i.test(n)).sort();
  } catch {
    return [];
  }
  const seen = new Set<string>();
  const out: GgufFile[] = [];
  for (const file of names) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path.join(dir, file));
    } catch {
      continue;
    }
    if (!stat.isFile()) continue;
    let id = subModelIdFor(file);
    for (let n = 2; seen.has(id); n++) id = `${subModelIdFor(file)}-${n}`;
    seen.add(id);
    out.push({ file, subModelId: id, bytes: stat.size });
  }
  return out;
}

/**
 * Checks a file's GGUF structure before llama.cpp sees it: magic, version, and that every count and length
 * in the metadata fits inside the file. node-llama-cpp's own reader does not stop on a corrupt header (it
 * carries on with absurd sizes and never returns), so a damaged or truncated file must be refused here.
 * Returns what is wrong, or undefined when the file looks sound.
 */
export function ggufProblem(file: string): string | undefined {
  const LIMIT = 64 * 1024 * 1024;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    return `cannot open: ${(e as Error).message}`;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, LIMIT));
    fs.readSync(fd, buf, 0, buf.length, 0);
    if (size < 24 || buf.toString('ascii', 0, 4) !== 'GGUF') return 'not a GGUF file';
    const version = buf.readUInt32LE(4);
    if (version < 2 || version > 3) return `unsupported GGUF version ${version}`;
    const tensors = buf.readBigUInt64LE(8);
    const kvs = buf.readBigUInt64LE(16);
    if (tensors > 1_000_000n || kvs > 100_000n) return 'corrupt header (impossible tensor or metadata count)';
    let pos = 24;
    const need = (n: number | bigint) => {
      if (BigInt(pos) + BigInt(n) > BigInt(size)) throw new Error('a length runs past the end of the file');
      if (pos + Number(n) > buf.length) throw new RangeError('beyond the checked part');
    };
    const str = () => {
      need(8);
      const len = buf.readBigUInt64LE(pos);
      pos += 8;
      need(len);
      pos += Number(len);
    };
    const SIZES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
    const value = (type: number, depth: number) => {
      if (type === 8) return str();
      if (type === 9) {
        if (depth > 2) throw new Error('arrays nested too deep');
        need(12);
        const inner = buf.readUInt32LE(pos);
        const count = buf.readBigUInt64LE(pos + 4);
        pos += 12;
        if (count > BigInt(size)) throw new Error('an array is longer than the file');
        if (SIZES[inner]) {
          need(count * BigInt(SIZES[inner]!));
          pos += Number(count) * SIZES[inner]!;
        } else for (let i = 0n; i < count; i++) value(inner, depth + 1);
        return;
      }
      const width = SIZES[type];
      if (!width) throw new Error(`unknown metadata type ${type}`);
      need(width);
      pos += width;
    };
    try {
      for (let i = 0n; i < kvs; i++) {
        str();
        need(4);
        const type = buf.readUInt32LE(pos);
        pos += 4;
        value(type, 0);
      }
    } catch (e) {
      if (e instanceof RangeError) return undefined; // metadata longer than we read: sound so far
      return `corrupt metadata (${(e as Error).message})`;
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
