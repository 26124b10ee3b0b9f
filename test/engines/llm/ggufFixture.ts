import fs from 'node:fs';

/**
 * Writes a tiny llama-architecture GGUF file with random weights, so tests exercise the real loading and
 * generation path of node-llama-cpp without downloading a model. Its output is noise by design.
 *
 * Layout (GGUF v3, little-endian): magic "GGUF", version, tensor count, metadata count, the metadata
 * key/values, the tensor descriptors, padding to the alignment, then each tensor's data at an aligned
 * offset. Every tensor here is F32 (ggml type 0), so no quantisation code is needed.
 */

const enum T { U32 = 4, I32 = 5, F32 = 6, STRING = 8, ARRAY = 9 }
const ALIGN = 32;

type Meta =
  | { t: T.U32 | T.I32 | T.F32; v: number }
  | { t: T.STRING; v: string }
  | { t: T.ARRAY; of: T.I32 | T.F32 | T.STRING; v: Array<number | string> };

class Out {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer) { this.parts.push(b); this.length += b.length; }
  u32(n: number) { const b = Buffer.alloc(4); b.writeUInt32LE(n); this.push(b); }
  i32(n: number) { const b = Buffer.alloc(4); b.writeInt32LE(n); this.push(b); }
  f32(n: number) { const b = Buffer.alloc(4); b.writeFloatLE(n); this.push(b); }
  u64(n: number) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); this.push(b); }
  str(s: string) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
  pad() { const r = this.length % ALIGN; if (r) this.push(Buffer.alloc(ALIGN - r)); }
  scalar(t: T, v: number | string) {
    if (t === T.U32) this.u32(v as number);
    else if (t === T.I32) this.i32(v as number);
    else if (t === T.F32) this.f32(v as number);
    else this.str(v as string);
  }
  done() { return Buffer.concat(this.parts); }
}

/** A seeded generator so the fixture is the same file every run (xorshift32). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

export interface GgufFixtureOptions {
  embd?: number;
  layers?: number;
  heads?: number;
  ff?: number;
  contextLength?: number;
  seed?: number;
  name?: string;
}

/** Builds the vocabulary of a SentencePiece-style ("llama") tokenizer: specials, 256 byte tokens, some pieces. */
function vocabulary() {
  const tokens: string[] = ['<unk>', '<s>', '</s>'];
  const types: number[] = [2, 3, 3]; // unknown, control, control
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6); // byte
  }
  const words = ['the', 'a', 'of', 'and', 'to', 'in', 'is', 'it', 'that', 'hello', 'world', 'model', 'local', 'test', 'say', 'one', 'two', 'three'];
  for (const w of words) { tokens.push(`\u2581${w}`); types.push(1); }
  for (const c of 'abcdefghijklmnopqrstuvwxyz.,!?') { tokens.push(c); types.push(1); }
  tokens.push('\u2581'); types.push(1);
  const scores = tokens.map((_, i) => (types[i] === 1 ? -i / 10 : 0));
  return { tokens, types, scores };
}

export function buildTinyGguf(opts: GgufFixtureOptions = {}): Buffer {
  const embd = opts.embd ?? 64;
  const layers = opts.layers ?? 2;
  const heads = opts.heads ?? 4;
  const ff = opts.ff ?? 128;
  const ctx = opts.contextLength ?? 512;
  const rand = rng(opts.seed ?? 1234);
  const { tokens, types, scores } = vocabulary();
  const nVocab = tokens.length;

  const meta: Array<[string, Meta]> = [
    ['general.architecture', { t: T.STRING, v: 'llama' }],
    ['general.name', { t: T.STRING, v: opts.name ?? 'atelier-test-random' }],
    ['general.alignment', { t: T.U32, v: ALIGN }],
    ['llama.context_length', { t: T.U32, v: ctx }],
    ['llama.embedding_length', { t: T.U32, v: embd }],
    ['llama.block_count', { t: T.U32, v: layers }],
    ['llama.feed_forward_length', { t: T.U32, v: ff }],
    ['llama.attention.head_count', { t: T.U32, v: heads }],
    ['llama.attention.head_count_kv', { t: T.U32, v: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { t: T.F32, v: 1e-5 }],
    ['llama.rope.dimension_count', { t: T.U32, v: embd / heads }],
    ['llama.vocab_size', { t: T.U32, v: nVocab }],
    ['tokenizer.ggml.model', { t: T.STRING, v: 'llama' }],
    ['tokenizer.ggml.tokens', { t: T.ARRAY, of: T.STRING, v: tokens }],
    ['tokenizer.ggml.scores', { t: T.ARRAY, of: T.F32, v: scores }],
    ['tokenizer.ggml.token_type', { t: T.ARRAY, of: T.I32, v: types }],
    ['tokenizer.ggml.bos_token_id', { t: T.U32, v: 1 }],
    ['tokenizer.ggml.eos_token_id', { t: T.U32, v: 2 }],
    ['tokenizer.ggml.unknown_token_id', { t: T.U32, v: 0 }],
  ];

  // ggml lists dimensions innermost first: a [rows=out, cols=in] matrix is ne = [in, out].
  const tensors: Array<{ name: string; ne: number[] }> = [
    { name: 'token_embd.weight', ne: [embd, nVocab] },
    { name: 'output_norm.weight', ne: [embd] },
    { name: 'output.weight', ne: [embd, nVocab] },
  ];
  for (let i = 0; i < layers; i++) {
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, ne: [embd] },
      { name: `blk.${i}.attn_q.weight`, ne: [embd, embd] },
      { name: `blk.${i}.attn_k.weight`, ne: [embd, embd] },
      { name: `blk.${i}.attn_v.weight`, ne: [embd, embd] },
      { name: `blk.${i}.attn_output.weight`, ne: [embd, embd] },
      { name: `blk.${i}.ffn_norm.weight`, ne: [embd] },
      { name: `blk.${i}.ffn_gate.weight`, ne: [embd, ff] },
      { name: `blk.${i}.ffn_up.weight`, ne: [embd, ff] },
      { name: `blk.${i}.ffn_down.weight`, ne: [ff, embd] },
    );
  }

  const out = new Out();
  out.push(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(meta.length);
  for (const [key, m] of meta) {
    out.str(key);
    out.u32(m.t);
    if (m.t === T.ARRAY) {
      out.u32(m.of);
      out.u64(m.v.length);
      for (const x of m.v) out.scalar(m.of, x);
    } else out.scalar(m.t, m.v);
  }
  let offset = 0;
  const datas: Buffer[] = [];
  for (const t of tensors) {
    const count = t.ne.reduce((a, b) => a * b, 1);
    out.str(t.name);
    out.u32(t.ne.length);
    for (const d of t.ne) out.u64(d);
    out.u32(0); // F32
    out.u64(offset);
    const data = Buffer.alloc(count * 4);
    // Norm weights at 1 keep activations in range; matrices get small random values.
    const isNorm = t.name.endsWith('norm.weight');
    for (let k = 0; k < count; k++) data.writeFloatLE(isNorm ? 1 : (rand() * 2 - 1) * 0.08, k * 4);
    datas.push(data);
    offset += data.length;
    const r = offset % ALIGN;
    if (r) { datas.push(Buffer.alloc(ALIGN - r)); offset += ALIGN - r; }
  }
  out.pad();
  for (const d of datas) out.push(d);
  return out.done();
}

export function writeTinyGguf(file: string, opts: GgufFixtureOptions = {}): void {
  fs.writeFileSync(file, buildTinyGguf(opts));
}
