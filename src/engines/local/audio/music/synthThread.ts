import fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as JSSynthTypes from 'js-synthesizer';
import { encodeWav16 } from '../wav.js';

/**
 * Runs in a worker thread (threads.ts): MIDI → audio with FluidSynth compiled to WASM, and the shared
 * finishing step (fade-out, peak normalisation, 16-bit WAV) for both renderers. The WASM library loads
 * once per thread and the SoundFont bytes stay cached; each render gets a fresh synthesizer so reverb
 * and voice state from an earlier piece can never leak into the next (the same seed gives the same bytes).
 */
const require = createRequire(import.meta.url);
export const SAMPLE_RATE = 44100;
const BLOCK = 4096;

let library: Promise<typeof JSSynthTypes> | undefined;
let font: { path: string; bytes: ArrayBuffer } | undefined;

function jsSynth(): Promise<typeof JSSynthTypes> {
  if (!library) {
    const JSSynth = require('js-synthesizer') as typeof JSSynthTypes;
    JSSynth.Synthesizer.initializeWithFluidSynthModule(require('js-synthesizer/libfluidsynth'));
    library = JSSynth.waitForReady().then(() => {
      JSSynth.disableLogging();
      return JSSynth;
    });
  }
  return library;
}

function soundFontBytes(p: string): ArrayBuffer {
  if (font?.path !== p) {
    const b = fs.readFileSync(p);
    font = { path: p, bytes: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer };
  }
  return font.bytes;
}

/** Renders a Standard MIDI File for exactly `seconds` and returns WAV bytes (44.1 kHz stereo). */
export async function renderWasm(smf: Uint8Array, soundFont: string, seconds: number): Promise<Uint8Array> {
  const JSSynth = await jsSynth();
  const synth = new JSSynth.Synthesizer();
  synth.init(SAMPLE_RATE, { initialGain: 0.5 });
  try {
    await synth.loadSFont(soundFontBytes(soundFont));
    await synth.addSMFDataToPlayer(smf.slice().buffer as ArrayBuffer);
    await synth.playPlayer();
    const frames = Math.ceil(seconds * SAMPLE_RATE);
    const left = new Float32Array(frames);
    const right = new Float32Array(frames);
    for (let at = 0; at < frames; at += BLOCK) {
      const l = new Float32Array(BLOCK);
      const r = new Float32Array(BLOCK);
      synth.render([l, r]);
      const n = Math.min(BLOCK, frames - at);
      left.set(l.subarray(0, n), at);
      right.set(r.subarray(0, n), at);
    }
    return finish([left, right]);
  } finally {
    synth.close();
  }
}

/** Finishes the native renderer's output: raw interleaved float32 stereo at 44.1 kHz. */
export function finishRaw(raw: Uint8Array, seconds: number): Uint8Array {
  const frames = Math.floor(raw.byteLength / 8);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const wanted = Math.ceil(seconds * SAMPLE_RATE);
  const left = new Float32Array(wanted);
  const right = new Float32Array(wanted);
  for (let i = 0; i < Math.min(frames, wanted); i++) {
    left[i] = view.getFloat32(i * 8, true);
    right[i] = view.getFloat32(i * 8 + 4, true);
  }
  return finish([left, right]);
}

/** Fades the last stretch out (the final chord would otherwise be cut), then scales the peak to -1 dBFS. */
function finish(channels: Float32Array[]): Uint8Array {
  const frames = channels[0]!.length;
  const fade = Math.min(Math.floor(1.5 * SAMPLE_RATE), Math.floor(frames * 0.15));
  let peak = 0;
  for (const ch of channels) {
    for (let i = 0; i < frames; i++) {
      const fromEnd = frames - 1 - i;
      if (fromEnd < fade) ch[i] = ch[i]! * (fromEnd / fade);
      peak = Math.max(peak, Math.abs(ch[i]!));
    }
  }
  if (peak > 0) {
    const gain = 0.89 / peak;
    for (const ch of channels) for (let i = 0; i < frames; i++) ch[i] = ch[i]! * gain;
  }
  const wav = encodeWav16(channels, SAMPLE_RATE);
  return new Uint8Array(wav.buffer, wav.byteOffset, wav.byteLength);
}
